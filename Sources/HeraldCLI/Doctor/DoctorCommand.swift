import APNSClient
import APNSCore
import ArgumentParser
import Foundation

/// `herald doctor`: checks credentials and the way to APNs (Apple's or the local one) without notifying anyone.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check credentials and the way to APNs, without notifying anyone.",
        discussion: """
            Each check prints ✓ or ✗, what it found and the next step: the key file (or certificate), the server's \
            name, TCP, TLS with HTTP/2 and a trusted certificate, and the credentials themselves, proven by a \
            background push (not stored) to a token no device has. Exit status 1 when a check fails. With --app, the \
            provider runs the credentials and clock checks with that app's sealed credentials instead.
            """)

    @OptionGroup(title: "Target and credentials")
    var target: SendTargetOptions

    @Option(help: "The app's bundle ID (the apns-topic); with --app, the provider's record of it.")
    var topic: String?

    @Option(
        help: """
            An app of the provider (herald up, herald serve): the provider checks its stored credentials, through \
            the connection it sends with; no key file is needed here.
            """)
    var app: String?

    @OptionGroup(title: "With --app: the provider")
    var provider: ProviderOptions

    @Option(
        help: """
            A device token to check too: the same background push (no alert, not stored) tells whether it is of \
            this environment and app. It wakes the app on that device silently.
            """)
    var token: String?

    @Option(help: "Seconds each network step may take.")
    var timeout: Double = 10

    @Flag(help: "Print the checks as JSON.")
    var json = false

    func validate() throws {
        if app == nil, topic == nil { throw ValidationError("give --topic (the app's bundle ID), or --app APP_ID") }
        if app != nil, token != nil { throw ValidationError("--token needs the key here: leave --app out") }
        if let token, (try? APNSDeviceToken(hex: token)) == nil {
            throw ValidationError("--token '\(token)' is not a device token (64 hexadecimal digits from the app)")
        }
        guard timeout.isFinite, timeout >= 1, timeout <= 300 else {
            throw ValidationError("--timeout is 1 to 300 seconds; got \(timeout)")
        }
    }

    func run() async throws {
        if let app {
            try await ProviderCheck.run(app: app, provider: provider, json: json)
            return
        }
        guard let topic else { return }
        let endpoint = try target.endpoint()
        let limit = Duration.milliseconds(Int(timeout * 1000))
        var checks: [DoctorCheck] = []
        let credentials = credentialsCheck()
        checks.append(credentials)
        let path = await ConnectionCheck.run(endpoint, timeout: limit)
        checks += path
        if credentials.outcome != .failed, path.allSatisfy({ $0.outcome != .failed }) {
            let authentication = try target.authentication()
            let proof = await CredentialsProbe.run(
                endpoint: endpoint, authentication: authentication, topic: topic, timeout: limit)
            checks.append(proof)
            if proof.outcome == .passed { checks.append(CredentialsProbe.clockAccepted()) }
            if let token, proof.outcome == .passed {
                checks.append(
                    await CredentialsProbe.token(
                        token, endpoint: endpoint, authentication: authentication, topic: topic, timeout: limit))
            }
        } else {
            checks.append(
                DoctorCheck(
                    name: "credentials", outcome: .skipped,
                    found: "not tried: it needs a usable key and a working connection (above)"))
        }
        let failed = checks.filter { $0.outcome == .failed }.count
        let io = CommandIO.current
        if json {
            let answer = JSONObject([
                ("endpoint", .string(endpoint.description)), ("topic", .string(topic)), ("ok", .bool(failed == 0)),
                ("checks", .array(checks.map(\.json))),
            ])
            io.write(String(decoding: JSONValue.object(answer).encoded(), as: UTF8.self) + "\n")
        } else {
            io.write("herald doctor: \(endpoint) for \(topic)\n")
            io.write(checks.map(\.text).joined(separator: "\n") + "\n")
            io.write(failed == 0 ? "all checks passed\n" : "\(failed) check(s) failed\n")
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// The key file or certificate, read before anything is sent.
    private func credentialsCheck() -> DoctorCheck {
        switch (target.authKey, target.cert) {
        case (let authKey?, nil):
            return SigningKeyCheck.run(authKey: authKey).check
        case (nil, _?):
            return CertificateCheck.run(target, topic: topic ?? "")
        case (nil, nil):
            return .failed(
                "credentials", "neither --auth-key nor --cert was given",
                next: "give --auth-key TEAMID:KEYID:AuthKey.p8 (a key from your developer account, or `herald keys "
                    + "generate` for the local APNs) or --cert FILE")
        case (.some, .some):
            return .failed("credentials", "both --auth-key and --cert were given", next: "give one of them")
        }
    }
}
