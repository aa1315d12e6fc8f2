import APNSClient
import APNSCore
import ArgumentParser
import Foundation
import NIOCore

/// `herald send`: sends notifications to Apple's APNs or the local gateway.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract:
            "Send a notification to devices (or a broadcast to a channel), through Apple's APNs or the gateway.",
        discussion: """
            The payload comes from --payload (JSON or .apns), standard input, or the quick flags (which also apply on \
            top of a file). It is checked as `herald payload lint` checks it before anything is sent.
            With --channel ID, one broadcast goes to every Live Activity subscribed to the channel (--topic is the \
            app's bundle ID; apns-priority 10 and apns-expiration 0 unless given).
            Exit status: 0 every notification accepted, 1 any rejected, 2 bad usage (nothing sent).
            """
    )

    @Option(name: .customLong("token"), help: "A device token (hex). Repeatable.")
    var tokens: [String] = []

    @Option(name: .customLong("tokens"), help: "A file of device tokens, one per line (- for standard input).")
    var tokenFile: String?

    @Option(help: "The payload file: JSON or an Xcode .apns file (- for standard input).")
    var payload: String?

    @Option(help: "A broadcast channel's ID: send one broadcast to its subscribers instead of device pushes.")
    var channel: String?

    @OptionGroup(title: "Payload flags")
    var quick: QuickPayloadOptions

    @OptionGroup(title: "Live Activity flags")
    var activity: LiveActivityOptions

    @OptionGroup(title: "APNs headers")
    var headers: APNSHeaderOptions

    @OptionGroup(title: "Target and credentials")
    var target: SendTargetOptions

    @OptionGroup var logging: LoggingOptions

    @Option(help: "How many connections to open at most.")
    var connections = 1

    @Option(
        help: """
            How many notifications may be in flight at once, over all connections (default: as many as each server \
            allows, 1,000 on APNs).
            """)
    var concurrency: Int?

    @Option(
        help: """
            Seconds a notification may take inside herald, waiting for a stream and retries included, before it is \
            reported DeadlineExceeded.
            """)
    var timeout = 30.0

    /// The most connections one send may open: each is a socket and a TLS session, and APNs advises against opening
    /// and closing many.
    static let mostConnections = 1000
    /// The most notifications one send may keep in flight: 1,000 connections at APNs' 1,000 streams each.
    static let mostConcurrency = 1_000_000

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    @Flag(name: .customLong("print-curl"), help: "Print the equivalent curl command instead of sending.")
    var printCurl = false

    func run() async throws {
        let io = CommandIO.current
        guard (1...Self.mostConnections).contains(connections) else {
            throw UsageError("--connections is 1 to \(Self.mostConnections); got \(connections)")
        }
        if let concurrency, !(1...Self.mostConcurrency).contains(concurrency) {
            throw UsageError(
                "--concurrency is 1 to \(Self.mostConcurrency) notifications in flight (APNs allows 1,000 streams a "
                    + "connection); got \(concurrency)")
        }
        guard timeout > 0, timeout <= 86_400 else {
            throw UsageError("--timeout is a number of seconds above 0 and at most 86400; got \(timeout)")
        }
        if let channel {
            try await broadcast(to: channel, io: io)
            return
        }
        guard !tokens.isEmpty || tokenFile != nil else {
            throw UsageError("say whom to send to: --token HEX, --tokens FILE or --channel ID")
        }
        for token in tokens {
            do throws(APNSRequestRejection) {
                _ = try APNSDeviceToken(hex: token)
            } catch {
                throw UsageError(
                    "--token '\(token.prefix(80))' is not a device token: \(error.message); nothing was sent")
            }
        }
        let payloadPath = payload ?? (quick.isEmpty && activity.isEmpty ? "-" : nil)
        if tokenFile == "-", payloadPath == "-" {
            throw UsageError(
                "the tokens and the payload cannot both come from standard input: give --payload FILE or payload flags")
        }
        let request = try SendRequest.make(
            payloadPath: payloadPath, quick: quick, activity: activity, io: io,
            headers: headers.values)
        for warning in request.warnings { io.writeError("warning: \(warning)\n") }
        let endpoint = try target.endpoint()
        let authentication = try target.authentication()
        if printCurl {
            try await printCurlCommand(request, endpoint: endpoint, authentication: authentication, io: io)
            return
        }
        if tokenFile != nil, RunningBinary.isDebugBuild, !json {
            io.writeError("note: \(RunningBinary.releaseAdvice)\n")
        }
        let summary = try await send(request, endpoint: endpoint, authentication: authentication, io: io)
        io.write(json ? summary.json() : summary.text())
        let counts = summary.snapshot
        if counts.accepted == 0, counts.rejected["ConnectionFailed"] != nil {
            io.writeError("next: \(nextStep(connectionFailure: counts.firstMessages["ConnectionFailed"]))\n")
        }
        if !summary.allAccepted { throw ExitCode(1) }
    }

    /// What to do when no connection could be made, from why the first one failed.
    private func nextStep(connectionFailure message: String?) -> String {
        let message = message ?? ""
        if message.contains("CERTIFICATE_VERIFY_FAILED") {
            return "pass --ca-file FILE with the server's CA (herald up's is .herald/up/gateway/ca.pem)"
        }
        if message.contains("plain HTTP") {
            return "use the local APNs' URL (herald status prints it) or --environment for Apple's, not the provider's"
        }
        let local = target.url != nil ? "is herald gateway or herald up running there? " : ""
        return "\(local)check the address (--url, --environment) and the network"
    }

    private func send(
        _ request: SendRequest, endpoint: APNSEndpoint, authentication: APNSClientAuthentication, io: CommandIO
    ) async throws -> SendSummary {
        let summary = SendSummary()
        var configuration = APNSPushClient.Configuration(endpoint: endpoint, authentication: authentication)
        configuration.maximumConnections = connections
        configuration.timeout = .milliseconds(Int(timeout * 1000))
        if let concurrency {
            configuration.maximumStreamsPerConnection = max(1, concurrency / connections)
            configuration.maximumPendingNotifications = max(configuration.maximumPendingNotifications, 2 * concurrency)
        }
        configuration.observer = SendObserver(summary: summary)
        configuration.logger = logging.logger("herald-send")
        let client = try APNSPushClient(configuration: configuration)
        let progress = tokenFile != nil && isatty(STDERR_FILENO) == 1 && !json ? SendProgress(summary: summary) : nil
        progress?.start()
        defer { progress?.stop() }
        let payload = ByteBuffer(bytes: request.body)
        let headers = request.headers
        let file = try tokenFile.map(TokenFile.init(path:))
        let given = AnySequence(tokens.map { TokenFile.Line(number: 0, text: $0) })  // checked in run()
        let lines = [given, file.map { AnySequence($0) } ?? AnySequence([])].joined()
        let notifications = lines.lazy.compactMap { line -> APNSNotification? in
            do throws(APNSRequestRejection) {
                _ = try APNSDeviceToken(hex: line.text)
                return APNSNotification(deviceToken: line.text, headers: headers, payload: payload)
            } catch {
                let place = line.number > 0 ? "\(tokenFile ?? ""):\(line.number): " : ""
                let text = String(line.text.prefix(80))
                summary.recordInvalidToken(text, message: "\(place)'\(text)' is not a device token: \(error.message)")
                return nil
            }
        }
        try await client.send(contentsOf: notifications) { outcome in
            summary.record(token: outcome.notification.deviceToken ?? "", outcome.result)
        }
        await client.shutdown()
        return summary
    }

    private func printCurlCommand(
        _ request: SendRequest, endpoint: APNSEndpoint, authentication: APNSClientAuthentication, io: CommandIO
    ) async throws {
        var authorization: String?
        if case .token(let signer, _) = authentication {
            authorization = try await signer.token(issuedAt: Date()).authorizationHeaderValue
        }
        let certificate = target.cert.map { (path: $0, password: target.certPassword, key: target.certKey) }
        let token = tokens.first ?? "$TOKEN"
        io.write(
            CurlCommand(
                endpoint: endpoint, caFile: target.caFile, headerFields: request.headers.headerFields,
                authorization: authorization, certificate: certificate, payload: request.body,
                path: "/3/device/\(token)"
            ).text)
    }
}
