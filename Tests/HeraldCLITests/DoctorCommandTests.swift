import APNSClient
import APNSCore
import APNSGateway
import Foundation
import GatewayTestSupport
import HeraldTime
import TestPacing
import Testing

@testable import HeraldCLI

@Suite("herald doctor: every check in both outcomes, against a real local APNs", .startsServers)
struct DoctorCommandTests {
    static func doctor(_ gateway: SendGateway, _ changes: [String: String] = [:], drop: [String] = []) async
        -> CommandResult
    {
        // 20 s: a full test run on two cores can starve a probe for several seconds.
        var options = [
            "--url": gateway.url, "--ca-file": gateway.caFile, "--auth-key": gateway.authKey, "--timeout": "20",
        ]
        options.merge(changes) { $1 }
        for name in drop { options[name] = nil }
        return await runHerald(
            ["doctor", "--topic", "com.example.app"] + options.flatMap { [$0.key, $0.value] })
    }

    static func keyFile(_ text: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString).p8")
        try Data(text.utf8).write(to: file)
        return file.path
    }

    @Test("good credentials: every check passes, and the probe reached APNs without notifying a device")
    func passes() async throws {
        try await SendGateway.with { gateway in
            let result = await Self.doctor(gateway)
            #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
            for line in ["✓ key file", "✓ address", "✓ connection", "✓ TLS", "✓ credentials", "all checks passed"] {
                #expect(result.output.contains(line), "\(line) in \(result.output)")
            }
            #expect(result.output.contains("400 BadDeviceToken, as expected"))
            let stored = gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: gateway.token))
            #expect(stored == nil, "the app's real device got nothing")
        }
    }

    @Test("a wrong team ID: the probe names InvalidProviderToken and where the IDs are")
    func wrongTeam() async throws {
        try await SendGateway.with { gateway in
            let key = gateway.authKey.split(separator: ":").last!
            let result = await Self.doctor(gateway, ["--auth-key": "WRONGTEAM1:ABC123DEFG:\(key)"])
            #expect(result.status == 1)
            #expect(result.output.contains("✗ credentials  answered 403 InvalidProviderToken"), "\(result.output)")
            #expect(result.output.contains("next: check the team ID (developer account: Membership)"))
            // The local APNs says exactly what was wrong, because Herald's client asked (herald-explain: 1).
            #expect(
                result.output.contains("The server says: the token's iss WRONGTEAM1 is not the team DEF123GHIJ"),
                "\(result.output)")
        }
    }

    @Test(
        "key files that cannot sign: each a ✗ with its cause, and nothing is sent",
        arguments: [
            ("", "the file is empty (0 bytes)"),
            ("hello, not a key\n", "it is not a PEM private key"),
            (
                "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n",
                "it holds a public key or a certificate"
            ),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n",
                "it holds an RSA or encrypted key"
            ),
        ])
    func badKeyFiles(text: String, cause: String) async throws {
        try await SendGateway.with { gateway in
            let path = try Self.keyFile(text)
            let result = await Self.doctor(gateway, ["--auth-key": "DEF123GHIJ:ABC123DEFG:\(path)"])
            #expect(result.status == 1)
            #expect(result.output.contains("✗ key file"), "\(result.output)")
            #expect(result.output.contains(cause), "\(result.output)")
            #expect(result.output.contains("- credentials  not tried"), "\(result.output)")
            #expect(!result.output.contains("BoringSSL") && !result.errorOutput.contains("Fatal"))
        }
    }

    @Test("a key ID of 9 characters and a missing key file are each named with the next step")
    func badIDsAndMissingFile() async throws {
        try await SendGateway.with { gateway in
            let key = gateway.authKey.split(separator: ":").last!
            let short = await Self.doctor(gateway, ["--auth-key": "DEF123GHIJ:ABC123DEF:\(key)"])
            #expect(short.status == 1)
            #expect(
                short.output.contains("the key ID 'ABC123DEF' is not 10 uppercase letters or digits (9 characters)"))
            let missing = await Self.doctor(gateway, ["--auth-key": "DEF123GHIJ:ABC123DEFG:/nonexistent.p8"])
            #expect(missing.status == 1)
            #expect(missing.output.contains("herald keys generate"), "\(missing.output)")
        }
    }

    @Test("the way there: untrusted CA, a plain-HTTP port, nothing listening; each the step that failed and why")
    func connectionFailures() async throws {
        try await SendGateway.with { gateway in
            let untrusted = await Self.doctor(gateway, drop: ["--ca-file"])
            #expect(untrusted.status == 1)
            #expect(untrusted.output.contains("✗ TLS          the server's certificate is not trusted here"))
            #expect(untrusted.output.contains("pass --ca-file FILE"))
            let plain = try ListeningSocket()
            plain.answerEachConnection(with: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            let http = await Self.doctor(gateway, ["--url": "https://127.0.0.1:\(plain.port)"])
            #expect(http.status == 1)
            #expect(http.output.contains("that port speaks plain HTTP, not TLS"), "\(http.output)")
            // A port that was free a moment ago: nothing listens there now.
            let port = try ListeningSocket().port
            let refused = await Self.doctor(gateway, ["--url": "https://127.0.0.1:\(port)"])
            #expect(refused.status == 1)
            #expect(refused.output.contains("✗ connection"), "\(refused.output)")
            #expect(refused.output.contains("is herald gateway or herald up running there?"))
            let silent = try ListeningSocket()
            let mute = await Self.doctor(gateway, ["--url": "https://127.0.0.1:\(silent.port)", "--timeout": "3"])
            #expect(
                mute.output.contains("✗ TLS          the server accepted TCP but did not answer TLS"), "\(mute.output)")
            withExtendedLifetime(silent) {}
        }
    }

    @Test("--json: one object with every check's outcome, found and next")
    func json() async throws {
        try await SendGateway.with { gateway in
            let data = await runHerald([
                "doctor", "--topic", "com.example.app", "--url", gateway.url, "--ca-file", gateway.caFile,
                "--auth-key", gateway.authKey, "--json",
            ])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(data.output.utf8)) as? [String: Any], "\(data.output)")
            #expect(object["ok"] as? Bool == true)
            let checks = try #require(object["checks"] as? [[String: Any]])
            #expect(
                checks.map { $0["check"] as? String } == [
                    "key file", "address", "connection", "TLS", "credentials", "clock",
                ])
            #expect(checks.allSatisfy { $0["outcome"] as? String == "passed" })
        }
    }

    @Test("a certificate: valid passes the probe, one expiring within 30 days is flagged, an expired one fails")
    func certificates() async throws {
        try await SendGateway.with { gateway in
            func certificate(issuedDaysAgo days: Double) throws -> String {
                let issued = try gateway.server.certificateAuthority.issuePushCertificate(
                    PushCertificate(bundleID: "com.example.app", environments: [.development]),
                    now: Date().addingTimeInterval(-days * 86_400))
                return try Self.keyFile(issued.certificatePEM + issued.privateKeyPEM)
            }
            let valid = await Self.doctor(gateway, ["--cert": try certificate(issuedDaysAgo: 0)], drop: ["--auth-key"])
            #expect(valid.status == 0, "\(valid.output)")
            #expect(valid.output.contains("✓ certificate") && valid.output.contains("✓ credentials"), "\(valid.output)")
            let soon = await Self.doctor(
                gateway, ["--cert": try certificate(issuedDaysAgo: 355.5)], drop: ["--auth-key"])
            #expect(soon.status == 0, "a warning is not a failure: \(soon.output)")
            #expect(soon.output.contains("! certificate") && soon.output.contains("in 9 days"), "\(soon.output)")
            let expired = await Self.doctor(
                gateway, ["--cert": try certificate(issuedDaysAgo: 400)], drop: ["--auth-key"])
            #expect(expired.status == 1)
            #expect(
                expired.output.contains("✗ certificate") && expired.output.contains("expired on"), "\(expired.output)")
        }
    }

    @Test("--token: a token of this environment is accepted; one of the other environment is named as such")
    func deviceToken() async throws {
        try await SendGateway.with { gateway in
            let good = await Self.doctor(gateway, ["--token": gateway.token])
            #expect(good.status == 0, "\(good.output)")
            #expect(good.output.contains("✓ device token accepted for com.example.app"), "\(good.output)")
            let other = try gateway.server.registry.register(bundleID: "com.example.app", environment: .production)
            let wrong = await Self.doctor(gateway, ["--token": other.token.hex])
            #expect(wrong.status == 1)
            #expect(wrong.output.contains("✗ device token answered 400 BadDeviceToken"), "\(wrong.output)")
            #expect(wrong.output.contains("send it to the other environment"))
            let bad = await Self.doctor(gateway, ["--token": "xyz"])
            #expect(bad.status == 2)
            #expect(bad.errorOutput.contains("is not a device token"))
        }
    }

    @Test("--token on Apple's names: a token of the other environment is named as that environment's, from its answer")
    func deviceTokenEnvironment() async throws {
        try await SendGateway.with { gateway in
            let apple = ["--environment": "sandbox", "--connect-to": "127.0.0.1:\(gateway.port)"]
            let production = try gateway.server.registry.register(bundleID: "com.example.app", environment: .production)
            let result = await Self.doctor(
                gateway, apple.merging(["--token": production.token.hex]) { $1 }, drop: ["--url"])
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains("production accepted it: it is a production token"), "\(result.output)")
            #expect(result.output.contains("--environment production"), "\(result.output)")
            let neither = await Self.doctor(
                gateway, apple.merging(["--token": String(repeating: "0f", count: 32)]) { $1 }, drop: ["--url"])
            #expect(neither.output.contains("by both environments: the token is neither's"), "\(neither.output)")
        }
    }

    @Test("a key limited to the other environment: both of Apple's spellings get the specific advice")
    func environmentScopedKey() {
        for reason in ["BadEnvironmentKeyIdInToken", "BadEnvironmentKeyInToken"] {
            let check = CredentialsProbe.verdict(
                APNSRejection(status: 403, reason: APNSReason(rawValue: reason), message: ""), topic: "com.example.app",
                endpoint: .sandbox)
            #expect(check.outcome == .failed)
            #expect(check.found.contains("limited to the other environment"), "\(reason): \(check.found)")
            #expect(check.next?.contains("production") == true, "\(reason): \(check.next ?? "")")
            #expect(APNSReason(rawValue: reason).change?.contains("key for both environments") == true)
        }
        let unanswered = APNSRejection(status: nil, reason: .connectionFailed, message: "refused")
        let standalone = CredentialsProbe.verdict(unanswered, topic: "t", endpoint: .sandbox)
        #expect(standalone.next == "see the connection checks above")
        #expect(APNSReason(rawValue: "TooManyProviderTokenUpdates").change?.contains("reuse one token") == true)
    }

    @Test("a clock 2 hours behind or ahead of APNs': a clock ✗ that says which way and how to set it; right: ✓ clock")
    func clock() async throws {
        for (shift, word) in [(2.0, "behind"), (-2.0, "ahead")] {
            // The gateway's clock moved by two hours stands for this machine's clock off by as much the other way.
            try await SendGateway.with(configure: { $0.clock = ShiftedClock(seconds: shift * 3600) }) {
                gateway in
                let result = await Self.doctor(gateway)
                #expect(result.status == 1, "\(result.output)")
                #expect(result.output.contains("✗ clock"), "\(result.output)")
                #expect(result.output.contains("more than an hour \(word)"), "\(result.output)")
                #expect(result.output.contains("timedatectl set-ntp true"), "\(result.output)")
            }
        }
        try await SendGateway.with { gateway in
            let result = await Self.doctor(gateway)
            #expect(result.output.contains("✓ clock"), "\(result.output)")
        }
    }

    @Test("a certificate of another app, of the other environment, not for push, or with a wrong password: each named")
    func certificateMismatches() async throws {
        try await SendGateway.with { gateway in
            let authority = gateway.server.certificateAuthority
            func file(_ certificate: PushCertificate, _ suffix: String = ".pem") throws -> String {
                let issued = try authority.issuePushCertificate(certificate)
                let path = try Self.keyFile(issued.certificatePEM + issued.privateKeyPEM)
                let pem = path.replacingOccurrences(of: ".p8", with: suffix)
                try FileManager.default.moveItem(atPath: path, toPath: pem)
                return pem
            }
            let other = await Self.doctor(
                gateway, ["--cert": try file(PushCertificate(bundleID: "com.other.app", environments: [.development]))],
                drop: ["--auth-key"])
            #expect(other.status == 1)
            #expect(other.output.contains("✗ certificate"), "\(other.output)")
            #expect(other.output.contains("may push to com.other.app, com.other.app.voip"), "\(other.output)")
            #expect(other.output.contains("TopicDisallowed"), "\(other.output)")

            let production = try file(PushCertificate(bundleID: "com.example.app", environments: [.production]))
            let sandbox = await Self.doctor(
                gateway, ["--cert": production, "--timeout": "1"], drop: ["--auth-key", "--url"])
            #expect(sandbox.status == 1)
            #expect(sandbox.output.contains("is for production only, not sandbox"), "\(sandbox.output)")
            #expect(sandbox.output.contains("BadCertificateEnvironment"), "\(sandbox.output)")

            let plain = try Self.keyFile("").replacingOccurrences(of: ".p8", with: ".pem")
            let madePlain = try await ChildProcess.run(
                "openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", plain,
                    "-out", plain + ".crt", "-subj", "/CN=example.test", "-days", "30",
                ], mergeErrors: false)
            try #require(madePlain.status == 0)
            let both =
                try String(contentsOfFile: plain + ".crt", encoding: .utf8)
                + String(contentsOfFile: plain, encoding: .utf8)
            let notPush = await Self.doctor(gateway, ["--cert": try Self.keyFile(both)], drop: ["--auth-key"])
            #expect(notPush.output.contains("is not an APNs certificate"), "\(notPush.output)")

            let pem = try file(PushCertificate(bundleID: "com.example.app", environments: [.development]))
            let p12 = pem.replacingOccurrences(of: ".pem", with: ".p12")
            let made = try await ChildProcess.run(
                "openssl", ["pkcs12", "-export", "-in", pem, "-out", p12, "-passout", "pass:secret"],
                mergeErrors: false)
            try #require(made.status == 0)
            let wrong = await Self.doctor(
                gateway, ["--cert": p12, "--cert-password": "nope"], drop: ["--auth-key"])
            #expect(wrong.status == 1)
            #expect(wrong.output.contains("✗ certificate"), "\(wrong.output)")
            #expect(wrong.output.contains("--cert-password"), "\(wrong.output)")
            #expect(!wrong.output.contains("NIOSSL") && !wrong.output.contains(".swift"), "\(wrong.output)")
        }
    }

    @Test("Apple's names, pointed at the local APNs (--connect-to): Apple's host passes; untrusted, the USERTrust root")
    func applesNames() async throws {
        try await SendGateway.with { gateway in
            let apple = ["--environment": "sandbox", "--connect-to": "127.0.0.1:\(gateway.port)"]
            let trusted = await Self.doctor(gateway, apple, drop: ["--url"])
            #expect(trusted.status == 0, "\(trusted.output)")
            #expect(
                trusted.output.contains("herald doctor: https://api.sandbox.push.apple.com for"), "\(trusted.output)")
            #expect(
                trusted.output.contains(
                    "✓ address      127.0.0.1:\(gateway.port) in place of api.sandbox.push.apple.com"),
                "\(trusted.output)")
            #expect(trusted.output.contains("trusted for api.sandbox.push.apple.com"), "\(trusted.output)")
            let untrusted = await Self.doctor(gateway, apple, drop: ["--url", "--ca-file"])
            #expect(untrusted.status == 1)
            #expect(untrusted.output.contains("✗ TLS"), "\(untrusted.output)")
            #expect(untrusted.output.contains("USERTrust RSA Certification Authority"), "\(untrusted.output)")
            let wrongTeam = await Self.doctor(
                gateway,
                apple.merging(["--auth-key": gateway.authKey.replacingOccurrences(of: "DEF123GHIJ", with: "WRONGTEAM1")]
                ) { $1 },
                drop: ["--url"])
            #expect(wrongTeam.output.contains("✗ credentials"), "\(wrongTeam.output)")
            #expect(wrongTeam.output.contains("InvalidProviderToken"), "\(wrongTeam.output)")
            let bad = await Self.doctor(gateway, ["--connect-to": "nowhere"])
            #expect(bad.status == 2)
            #expect(bad.errorOutput.contains("--connect-to is HOST:PORT"), "\(bad.errorOutput)")
        }
    }
}

/// The real time moved by a fixed amount: a machine whose clock is off.
struct ShiftedClock: WallClock {
    let seconds: TimeInterval

    var currentDate: Date { Date().addingTimeInterval(seconds) }

    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }

    func sleep(until deadline: Date) async throws {
        try await SystemWallClock().sleep(until: deadline.addingTimeInterval(-seconds))
    }
}
