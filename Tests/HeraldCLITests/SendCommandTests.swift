import APNSCore
import APNSGateway
import Courier
import Crypto
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@Suite("herald send against the live gateway", .startsServers)
struct SendCommandTests {
    @Test("one token: exit 0 and the apns-id APNs answered")
    func acceptedOne() async throws {
        try await SendGateway.with { gateway in
            let result = await runHerald(
                gateway.arguments(["--token", gateway.token, "--title", "Hi", "--body", "There"]))
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output.contains("accepted, apns-id"))
            let stored = gateway.server.store.notifications(for: try APNSDeviceToken(hex: gateway.token)).stored
            #expect(stored.count == 1)
            let payload = try APNSPayload(data: Data(stored.first?.payload ?? []))
            #expect(payload.aps["alert"] == ["title": "Hi", "body": "There"])
        }
    }

    @Test("--log-level: a retry is logged at info with its reason, a refusal only at debug, each with its apns-id")
    func logLevels() async throws {
        try await SendGateway.with { gateway in
            gateway.server.faults.add(.init(effect: .answer(status: 503, reason: .serviceUnavailable), count: 1))
            let unknown = String(repeating: "ab", count: 32)
            let arguments = gateway.arguments(["--token", gateway.token, "--token", unknown, "--body", "x"])
            let info = await runHerald(arguments)
            #expect(info.errorOutput.contains("info herald-send: sending again"), "\(info.errorOutput)")
            #expect(info.errorOutput.contains("reason=ServiceUnavailable"), "\(info.errorOutput)")
            #expect(!info.errorOutput.contains("herald-send: rejected"), "\(info.errorOutput)")
            let debug = await runHerald(arguments + ["--log-level", "debug"])
            let rejected = debug.errorOutput.split(separator: "\n").first { $0.contains("herald-send: rejected") }
            #expect(rejected?.contains("reason=BadDeviceToken") == true, "\(debug.errorOutput)")
            #expect(rejected?.contains("apns-id=") == true, "\(debug.errorOutput)")
            #expect(rejected?.contains("token=abababab…") == true, "never the whole token: \(debug.errorOutput)")
            let quiet = await runHerald(arguments + ["--log-level", "error"])
            #expect(!quiet.errorOutput.contains("herald-send:"), "\(quiet.errorOutput)")
        }
    }

    @Test("--json: sent, accepted, rejected by reason, retried, seconds; exit 1 when any was rejected")
    func jsonSummary() async throws {
        try await SendGateway.with { gateway in
            gateway.server.faults.add(.init(effect: .answer(status: 503, reason: .serviceUnavailable), count: 1))
            let unknown = String(repeating: "ab", count: 32)
            let result = await runHerald(
                gateway.arguments(["--token", gateway.token, "--token", unknown, "--body", "x", "--json"]))
            #expect(result.status == 1)
            let summary = try JSONValue(parsing: Data(result.output.utf8))
            #expect(summary["sent"] == 2)
            #expect(summary["accepted"] == 1)
            #expect(summary["rejected"] == ["BadDeviceToken": 1])
            #expect(summary["retried"] == 1)
            #expect(summary["seconds"]?.number != nil)
            #expect(summary["results"]?.array?.count == 2)
        }
    }

    @Test("a removed app's token: 410 Unregistered with its timestamp in the JSON")
    func unregistered() async throws {
        try await SendGateway.with { gateway in
            let token = try APNSDeviceToken(hex: gateway.token)
            #expect(try gateway.server.registry.invalidate(token, at: Date(timeIntervalSince1970: 1_750_000_000)))
            let result = await runHerald(gateway.arguments(["--token", gateway.token, "--body", "x", "--json"]))
            #expect(result.status == 1)
            let first = try JSONValue(parsing: Data(result.output.utf8))["results"]?.array?.first
            #expect(first?["status"] == 410)
            #expect(first?["reason"] == "Unregistered")
            #expect(first?["timestamp"] == 1_750_000_000_000)
        }
    }

    // A debug build sends ~450/s, and with the whole suite on two cores sends waited in the client's 4,096-wide
    // window past the default 30-second deadline (DeadlineExceeded), which says nothing about streaming: --timeout.
    @Test("a token file of 30,000 lines is streamed and every line gets a result")
    func largeTokenFile() async throws {
        try await SendGateway.with { gateway in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
            var text = "# one device, many times\n\n"
            text.reserveCapacity(30_000 * 65)
            for _ in 0..<30_000 { text += gateway.token + "\n" }
            try Data(text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = await runHerald(
                gateway.arguments([
                    "--tokens", file.path, "--body", "x", "--json", "--concurrency", "8", "--timeout", "600",
                ]))
            #expect(result.status == 0, "\(result.errorOutput)")
            let summary = try JSONValue(parsing: Data(result.output.utf8))
            #expect(summary["sent"] == 30_000)
            #expect(summary["accepted"] == 30_000, "rejected: \(summary["rejected"].map { "\($0)" } ?? "none")")
            #expect(summary["results"] == nil, "results are listed for small sends only")
        }
    }

    @Test(
        "the summary says where the time went: round trip, streams in flight, the limit they allow, what held it back")
    func whereTheTimeWent() async throws {
        try await SendGateway.with { gateway in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
            try Data(String(repeating: gateway.token + "\n", count: 1500).utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let proxy = try LatencyProxy(targetPort: gateway.port, roundTripMilliseconds: 80)
            defer { proxy.stop() }
            var far = gateway.arguments(["--tokens", file.path, "--body", "x", "--json"])
            far[try #require(far.firstIndex(of: gateway.url))] = "https://127.0.0.1:\(proxy.port)"
            let result = await runHerald(far)
            #expect(result.status == 0, "\(result.errorOutput)")
            let summary = try JSONValue(parsing: Data(result.output.utf8))
            let roundTrip = try #require(summary["roundTripMilliseconds"]?.number?.doubleValue)
            #expect(roundTrip >= 80, "\(roundTrip) ms through an 80 ms proxy")
            #expect(summary["streamLimit"] == 1000, "the gateway allows APNs' 1,000 streams once the token is good")
            #expect(summary["connections"] == 1)
            let limit = try #require(summary["limitPerSecond"]?.number?.doubleValue)
            #expect(abs(limit * roundTrip / 1_000_000 - 1) < 0.01, "1,000 streams / \(roundTrip) ms is not \(limit)/s")
            let ofLimit = try #require(summary["ofLimit"]?.number?.doubleValue)
            let rate = try #require(summary["notificationsPerSecond"]?.number?.doubleValue)
            #expect(abs(ofLimit - rate / limit) < 0.01)
            #expect(try #require(summary["averageInFlight"]?.number?.doubleValue) > 100)
            #expect(summary["bottleneck"]?.string?.isEmpty == false)

            let text = await runHerald(
                gateway.arguments(["--token", gateway.token, "--token", gateway.token, "--body", "x"]))
            #expect(
                text.output.contains(
                    "in flight on average (first write to result), 1000 streams allowed on each of 1 connection"),
                "\(text.output)")
            #expect(text.output.contains("\nheld back by "), "\(text.output)")
        }
    }

    @Test("a line that is no device token is reported as BadDeviceToken and not sent; the rest go")
    func invalidLine() async throws {
        try await SendGateway.with { gateway in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
            try Data("\(gateway.token)\nnot-a-token\n\(gateway.token)\n".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = await runHerald(gateway.arguments(["--tokens", file.path, "--body", "x", "--json"]))
            #expect(result.status == 1)
            let summary = try JSONValue(parsing: Data(result.output.utf8))
            #expect(summary["accepted"] == 2)
            #expect(summary["rejected"] == ["BadDeviceToken": 1])
            let message = summary["results"]?.array?.compactMap { $0["message"]?.string }.first ?? ""
            #expect(message.contains(":2:"), "the message names the line: \(message)")
            // The summary in words says what the reason means and what to change, whichever APNs answered.
            let text = await runHerald(gateway.arguments(["--tokens", file.path, "--body", "x"]))
            #expect(text.output.contains("that is: the token is not one of this environment's"), "\(text.output)")
            #expect(text.output.contains("next: send it to the environment the token is from"), "\(text.output)")
        }
    }

    @Test("the payload from standard input and from a .apns file")
    func payloadSources() async throws {
        try await SendGateway.with { gateway in
            let fromStdin = await runHerald(
                gateway.arguments(["--token", gateway.token]), input: #"{"aps":{"alert":"from stdin"}}"#)
            #expect(fromStdin.status == 0, "\(fromStdin.errorOutput)")
            let fromFile = await runHerald(
                gateway.arguments([
                    "--token", gateway.token, "--payload", fixture("seeds/002-attachment-download.json"),
                ])
            )
            #expect(fromFile.status == 0, "\(fromFile.errorOutput)")
        }
    }

    @Test("--print-curl prints the request and sends nothing")
    func printCurl() async throws {
        try await SendGateway.with { gateway in
            let result = await runHerald(gateway.arguments(["--token", gateway.token, "--body", "x", "--print-curl"]))
            #expect(result.status == 0)
            #expect(result.output.hasPrefix("curl -v --http2"))
            #expect(result.output.contains("/3/device/\(gateway.token)"))
            #expect(result.output.contains("apns-topic: com.example.app"))
            #expect(result.output.contains("authorization: bearer "))
            let token = try APNSDeviceToken(hex: gateway.token)
            #expect(gateway.server.store.notifications(for: token).stored.isEmpty)
        }
    }

    @Test("bad usage exits 2 and sends nothing")
    func badUsage() async throws {
        try await SendGateway.with { gateway in
            let cases: [[String]] = [
                gateway.arguments(["--body", "no token given"]),
                gateway.arguments(["--token", gateway.token, "--body", "x", "--priority", "7"]),
                gateway.arguments(["--token", gateway.token, "--body", "x", "--environment", "production"]),
                gateway.arguments([
                    "--token", gateway.token, "--body", "x", "--collapse-id", String(repeating: "c", count: 65),
                ]),
                gateway.arguments(["--token", gateway.token, "--custom", "aps=1"]),
                ["send", "--token", gateway.token, "--body", "x", "--topic", "com.example.app"],
                ["send", "--token", gateway.token, "--body", "x", "--auth-key", "DEF123GHIJ:ABC123DEFG:/no/such.p8"],
                ["send", "--token", gateway.token, "--body", "x", "--cert", "/no/such.p12", "--url", gateway.url],
            ]
            for arguments in cases {
                let result = await runHerald(arguments)
                #expect(result.status == 2, "\(arguments): \(result.errorOutput)")
                #expect(!result.errorOutput.isEmpty)
            }
            let bothFromStdin = await runHerald(
                gateway.arguments(["--tokens", "-"]), input: #"{"aps":{"alert":"x"}}"#)
            #expect(bothFromStdin.status == 2)
            #expect(bothFromStdin.errorOutput.contains("standard input"))
            let withoutTopic = await runHerald(
                ["send", "--token", gateway.token, "--body", "x", "--url", gateway.url, "--ca-file", gateway.caFile]
                    + ["--auth-key", gateway.authKey])
            #expect(withoutTopic.status == 2)
            #expect(withoutTopic.errorOutput.contains("--topic"))
            let token = try APNSDeviceToken(hex: gateway.token)
            #expect(gateway.server.store.notifications(for: token).stored.isEmpty)
        }
    }
}

/// A gateway in this process with a key on disk and a registered device, for `herald send`.
struct SendGateway {
    let server: GatewayServer
    let port: Int
    let url: String
    let caFile: String
    let authKey: String
    let token: String

    static func with(
        configure: (inout GatewayServer.Configuration) -> Void = { _ in }, _ body: (SendGateway) async throws -> Void
    ) async throws {
        let gateway = try await TestGateway.start(configure: configure)
        let keyFile = gateway.directory.appendingPathComponent("AuthKey.p8")
        try Data(gateway.key.pemRepresentation.utf8).write(to: keyFile)
        let device = try gateway.server.registry.register(bundleID: "com.example.app", environment: .development)
        let sendGateway = SendGateway(
            server: gateway.server, port: gateway.port, url: "https://127.0.0.1:\(gateway.port)",
            caFile: gateway.server.certificateAuthority.caPath.path,
            authKey: "DEF123GHIJ:ABC123DEFG:\(keyFile.path)", token: device.token.hex)
        try await gateway.run { try await body(sendGateway) }
    }

    /// `herald send` with this gateway as the target, its key, and topic `com.example.app`, then `extra`.
    func arguments(_ extra: [String]) -> [String] {
        ["send", "--url", url, "--ca-file", caFile, "--auth-key", authKey, "--topic", "com.example.app"] + extra
    }
}

@Suite("herald send with a certificate", .startsServers)
struct SendCertificateTests {
    @Test("--cert with a PKCS#12 file (made by openssl) and its password")
    func pkcs12() async throws {
        try await SendGateway.with { gateway in
            let issued = try gateway.server.certificateAuthority.issuePushCertificate(
                PushCertificate(bundleID: "com.example.app", environments: [.development]))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("p12-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let pem = directory.appendingPathComponent("cert.pem")
            let p12 = directory.appendingPathComponent("cert.p12")
            try Data((issued.certificatePEM + issued.privateKeyPEM).utf8).write(to: pem)
            let status = try await run(
                "openssl",
                ["pkcs12", "-export", "-in", pem.path, "-out", p12.path, "-passout", "pass:secret"])
            try #require(status == 0)
            let base = ["send", "--url", gateway.url, "--ca-file", gateway.caFile, "--topic", "com.example.app"]
            let sent = await runHerald(
                base + ["--cert", p12.path, "--cert-password", "secret", "--token", gateway.token, "--body", "x"])
            #expect(sent.status == 0, "\(sent.output) \(sent.errorOutput)")
            let wrongPassword = await runHerald(
                base + ["--cert", p12.path, "--cert-password", "nope", "--token", gateway.token, "--body", "x"])
            #expect(wrongPassword.status == 2)
            #expect(wrongPassword.errorOutput.contains("--cert"))
        }
    }

    /// Runs a program to its end without blocking a thread, and returns its exit status.
    private func run(_ executable: String, _ arguments: [String]) async throws -> Int32 {
        try await ChildProcess.run(executable, arguments, mergeErrors: false).status
    }
}
