import ArgumentParser
import DeviceSimulator
import Foundation
import HeraldSupport
import ServiceLifecycle

/// `herald device`: a simulated iPhone connected to a gateway.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Run a simulated device: apps from manifests receive pushes through the UserNotifications pipeline.",
        discussion: "Manifests are described in docs/devices.md; examples/ has one per scenario."
    )

    @Option(help: "The gateway's URL.")
    var gateway = "https://127.0.0.1:2197"

    @Option(name: .customLong("ca-file"), help: "The gateway's CA certificate (its DATA/ca.pem).")
    var caFile = "./.herald/gateway/ca.pem"

    @Option(name: .customLong("app"), help: "An app manifest (JSON). Repeatable.")
    var apps: [String] = []

    @Option(help: "Where the device keeps its tokens, keys and attachments.")
    var data = "./.herald/device"

    @Option(name: .customLong("api-host"), help: "The address the device's JSON API listens on.")
    var apiHost = "127.0.0.1"

    @Option(name: .customLong("api-port"), help: "The port of the device's JSON API (0 picks a free one).")
    var apiPort = 2198

    @Option(name: .customLong("register-url"), help: "POST each device token here (token, bundleID, publicKey).")
    var registerURL: String?

    @Option(name: .customLong("report-url"), help: "POST every delivery, display and response here as JSON.")
    var reportURL: String?

    @Option(
        name: .customLong("allow-attachment-host"),
        help: "A host (or host:port) on a loopback or private address that attachment downloads may reach. Repeatable.")
    var allowedAttachmentHosts: [String] = []

    @Option(help: "The signed-in user the --register-url registration binds the device to (needs --user-token).")
    var user: String?

    @Option(
        name: .customLong("user-token"),
        help: "The user token the app's server got for --user (POST /v1/users/{userID}/token on the provider).")
    var userToken: String?

    @Option(
        name: .customLong("extension-time-limit"),
        help: "Seconds a service extension has before its best attempt is shown.")
    var extensionTimeLimit = 30.0

    @Option(
        name: .customLong("subscribe"),
        help: "A broadcast channel every app subscribes to on connecting; its broadcasts are received. Repeatable.")
    var channelSubscriptions: [String] = []

    @Flag(name: .customLong("no-terminal"), help: "Do not read commands from standard input.")
    var noTerminal = false

    @Option(
        help: """
            Run this many devices in one process (load and latency tests), each under DATA/NNNN, with every token \
            written to DATA/tokens.txt; no terminal and no JSON API.
            """)
    var fleet: Int?

    @OptionGroup var logging: LoggingOptions
    @OptionGroup var traces: TraceOptions

    func run() async throws {
        guard !apps.isEmpty else {
            throw UsageError("give at least one --app MANIFEST (see docs/devices.md, or examples/*/app.json)")
        }
        if let fleet, !(1...100_000).contains(fleet) {
            throw UsageError("--fleet is between 1 and 100000 devices; got \(fleet)")
        }
        guard ["127.0.0.1", "localhost", "::1"].contains(apiHost) else {
            throw UsageError(
                "--api-host is a loopback address (127.0.0.1 or ::1): the device's JSON API acts on notifications "
                    + "without credentials, so it is not offered to other machines; got '\(apiHost)'")
        }
        let manifests = try apps.map(Self.readManifest)
        let traceExport = try traces.backend(serviceName: "herald-device")
        let configuration = try makeConfiguration(manifests, tracer: traceExport?.tracer)
        let lock = try DataFolderLock(URL(fileURLWithPath: data), command: "herald device")
        let shutdown = CommandShutdown()
        let service: any Service
        if let fleet {
            service = DeviceFleet(configuration: configuration, count: fleet)
        } else {
            var session = DeviceSession(
                configuration: configuration, apiHost: apiHost, apiPort: apiPort, interactive: !noTerminal)
            session.shutdown = shutdown
            service = session
        }
        do {
            // The exporter first: the group stops services in reverse, so it sends the last spans.
            let exporter = traceExport.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0.service)] }
            try await CommandServices.run(
                (exporter ?? []) + [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
                logger: logging.logger("herald-device"), shutdown: shutdown)
        } catch {
            lock.discardIfNew()
            throw error
        }
    }

    static func readManifest(_ path: String) throws -> AppManifest {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--app: cannot read \(path)")
        }
        do {
            return try AppManifest(data: data)
        } catch {
            throw UsageError("--app \(path): \(error.message)")
        }
    }

    private func makeConfiguration(_ manifests: [AppManifest], tracer: HeraldTracer?) throws
        -> SimulatedDevice.Configuration
    {
        guard let url = URL(string: gateway), url.scheme == "https", let host = url.host else {
            throw UsageError(
                "--gateway is the gateway's https URL, for example https://127.0.0.1:2197; got '\(gateway)'")
        }
        guard let ca = try? String(contentsOfFile: caFile, encoding: .utf8) else {
            throw UsageError("--ca-file: cannot read \(caFile); it is the gateway's DATA/ca.pem")
        }
        guard extensionTimeLimit > 0, extensionTimeLimit <= 86_400 else {
            throw UsageError(
                "--extension-time-limit is a number of seconds above 0 and at most 86400; got \(extensionTimeLimit)")
        }
        var configuration = SimulatedDevice.Configuration(
            gatewayHost: host, gatewayPort: url.port ?? 443, caPEM: ca, apps: manifests,
            dataDirectory: URL(fileURLWithPath: data))
        configuration.registerURL = try registerURL.map { try Self.httpURL($0, option: "--register-url") }
        configuration.reportURL = try reportURL.map { try Self.httpURL($0, option: "--report-url") }
        configuration.serviceExtensionTimeLimit = .milliseconds(Int(extensionTimeLimit * 1000))
        configuration.allowedAttachmentHosts = allowedAttachmentHosts
        configuration.logger = logging.logger("herald-device")
        configuration.tracer = tracer
        configuration.channelSubscriptions = channelSubscriptions
        switch (user, userToken) {
        case (let user?, let token?): configuration.user = (user, token)
        case (nil, nil): break
        default:
            throw UsageError(
                "--user and --user-token go together: the provider binds a device to a user only with the token the "
                    + "app's server got for that user (POST /v1/users/{userID}/token)")
        }
        return configuration
    }

    private static func httpURL(_ text: String, option: String) throws -> URL {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? "") else {
            throw UsageError("\(option) is an http or https URL; got '\(text)'")
        }
        return url
    }
}
