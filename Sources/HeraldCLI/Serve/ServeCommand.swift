import ArgumentParser
import Foundation
import HeraldConsole
import HeraldSupport
import Logging
import NIOSSL
import ProviderStorage
import PushProvider
import ServiceLifecycle
import Synchronization

/// `herald serve`: the provider service.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the provider service: device tokens, notifications through a durable queue, feedback.",
        discussion: "The API is documented in docs/api.md. The admin token is printed once, at the start that makes it."
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    @Option(
        name: .customLong("tls-cert"),
        help: "Serve HTTPS with this PEM certificate (chain), with --tls-key; without both, plain HTTP.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    @Option(help: "Where the database, the master key and the admin token are kept (DIR/provider/).")
    var data = "./.herald"

    @Option(
        help: """
            The database: sqlite (the default, one file under --data, one process) or a PostgreSQL URL, \
            postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=disable|prefer|require|verify-full&schema=NAME], \
            which any number of herald serve processes may share.
            """)
    var database = "sqlite"

    @Option(name: .customLong("admin-token"), help: "The admin token (default: DIR/provider/admin-token).")
    var adminToken: String?

    @Option(
        name: .customLong("metrics-token-file"),
        help: ArgumentHelp(
            "A file holding the token Prometheus sends to read /metrics (and nothing else).",
            discussion: "Without it (and without --public-metrics) /metrics takes the admin token."))
    var metricsTokenFile: String?

    @Flag(
        name: .customLong("public-metrics"),
        help: "Serve /metrics without a token: only where just the monitoring network reaches this port.")
    var publicMetrics = false

    @Option(help: "Concurrent delivery workers.")
    var workers = 4

    @Option(name: .customLong("batch-size"), help: "Deliveries a worker leases at a time.")
    var batchSize = 5000

    @Option(
        help:
            "The most HTTP/2 connections per app to APNs (another opens only while the open ones have no stream free).")
    var connections = 4

    @Option(
        name: .customLong("max-connections"),
        help:
            "The most API connections open at once; past it a new one is answered 503 (lowered to fit the open-file limit)."
    )
    var maxConnections = 1000

    @Option(
        name: .customLong("allow-endpoint"),
        help: "An endpoint besides Apple's that apps' API keys may choose, such as https://127.0.0.1:2197. Repeatable.")
    var allowedEndpoints: [String] = []

    @Option(
        name: .customLong("allow-webhook-host"),
        help: "A host (or host:port) on a loopback or private address that webhooks may reach. Repeatable.")
    var allowedWebhookHosts: [String] = []

    @Option(
        name: .customLong("gateway-admin"),
        help: "A local gateway (herald gateway) whose delivery log the console shows, such as https://127.0.0.1:2197.")
    var gatewayAdmin: String?

    @Option(
        name: .customLong("gateway-admin-token-file"),
        help: "The gateway's admin token file (default: ./.herald/gateway/admin-token).")
    var gatewayAdminTokenFile = "./.herald/gateway/admin-token"

    @Option(
        name: .customLong("gateway-ca"), help: "The gateway's CA certificate (default: ./.herald/gateway/ca.pem).")
    var gatewayCA = "./.herald/gateway/ca.pem"

    @Option(
        name: .customLong("device-api"),
        help:
            "A simulated device's API (herald device --api-port) the console draws, such as http://127.0.0.1:2198. Repeatable."
    )
    var deviceAPIs: [String] = []

    @Option(
        name: .customLong("retention-days"),
        help: "Days a notification's delivery rows are kept, for apps that set no retention (1-3650).")
    var retentionDays = RetentionDays.standard.deliveries ?? 30

    @Option(
        name: .customLong("trace-retention-days"),
        help: "Days devices' receipts (delivered, displayed) are kept, for apps that set none (1-3650).")
    var traceRetentionDays = RetentionDays.standard.traces ?? 7

    @Option(
        name: .customLong("response-retention-days"),
        help: "Days people's responses (taps, actions, replies) are kept, for apps that set none (1-3650).")
    var responseRetentionDays = RetentionDays.standard.responses ?? 30

    @Option(
        name: .customLong("prune-interval"),
        help: "Seconds between two passes of the retention pruner (1-86400).")
    var pruneInterval = 600

    /// The default retention the options give.
    var retention: RetentionDays {
        RetentionDays(deliveries: retentionDays, traces: traceRetentionDays, responses: responseRetentionDays)
    }

    func validate() throws {
        guard (1...86_400).contains(pruneInterval) else {
            throw ValidationError("--prune-interval is 1 to 86400 seconds; got \(pruneInterval)")
        }
        do {
            try retention.check(prefix: "--retention")
        } catch {
            throw ValidationError(
                "--retention-days, --trace-retention-days and --response-retention-days are 1 to "
                    + "\(RetentionDays.maximum); got \(retentionDays), \(traceRetentionDays) and \(responseRetentionDays)"
            )
        }
        for text in deviceAPIs + [gatewayAdmin].compactMap({ $0 }) {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("\(text) is not an http:// or https:// URL")
            }
        }
        do {
            _ = try PushProviderService.Database(parsing: database)
        } catch {
            throw ValidationError(error.description)
        }
        guard (1...1024).contains(workers), (1...100_000).contains(batchSize), (1...64).contains(connections) else {
            throw ValidationError(
                "--workers is 1 to 1024, --batch-size 1 to 100000 and --connections 1 to 64; got \(workers), "
                    + "\(batchSize) and \(connections)")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("give --tls-cert and --tls-key together (the certificate and its private key, PEM)")
        }
        guard !(publicMetrics && metricsTokenFile != nil) else {
            throw ValidationError("give --public-metrics or --metrics-token-file, not both")
        }
        guard (1...1_000_000).contains(maxConnections) else {
            throw ValidationError("--max-connections is 1 to 1000000; got \(maxConnections)")
        }
    }

    @OptionGroup var logging: LoggingOptions
    @OptionGroup var publicLimits: PublicLimitOptions
    @OptionGroup var traces: TraceOptions

    func run() async throws {
        let io = CommandIO.current
        var configuration = PushProviderService.Configuration(dataDirectory: URL(fileURLWithPath: data))
        configuration.database = try PushProviderService.Database(parsing: database)
        configuration.host = host
        configuration.port = port
        configuration.adminToken = adminToken
        configuration.workers = workers
        configuration.batchSize = batchSize
        configuration.retention = retention
        configuration.pruneInterval = .seconds(pruneInterval)
        configuration.connectionsPerApp = connections
        configuration.allowedEndpoints = allowedEndpoints
        configuration.allowedWebhookHosts = allowedWebhookHosts
        configuration.httpLimits.maximumConnections = maxConnections
        configuration.publicLimits = publicLimits.limits
        configuration.trustedProxies = try publicLimits.proxies()
        configuration.tls = try tlsConfiguration()
        configuration.metricsAccess = try metricsAccess()
        let traceExport = try traces.backend(serviceName: "herald-provider")
        configuration.tracer = traceExport?.tracer
        // One process per SQLite file; PostgreSQL is shared by design.
        let lock =
            configuration.database == .sqlite
            ? try DataFolderLock(configuration.providerDirectory, command: "herald serve") : nil
        let madeFolder = !FileManager.default.fileExists(atPath: data)
        let provider: PushProviderService
        do {
            provider = try await PushProviderService(
                configuration: configuration,
                logger: logging.logger("herald-provider", metadataProvider: traceExport?.tracer.logMetadata))
        } catch {
            // A failed start leaves no half-made folder, and says the cause first.
            lock?.discardIfNew()
            if madeFolder { try? FileManager.default.removeItem(atPath: data) }
            throw CommandFailure(error.cause ?? error.description)
        }
        var consoleConfiguration = try consoleConfiguration()
        consoleConfiguration.clock = provider.configuration.clock
        let console = try await ConsolePlugin(configuration: consoleConfiguration)
        let loginPath: String
        do {
            loginPath = try await console.loginPath(key: provider.adminToken, provider: provider)
        } catch {
            throw CommandFailure(error.description)
        }
        let folder = provider.configuration.providerDirectory
        let listened = Mutex(false)
        let metricsNote =
            publicMetrics ? ", without a token" : metricsTokenFile == nil ? " with the admin token" : " with its token"
        let services = try provider.services(plugins: [console]) { [host, adminToken] port in
            listened.withLock { $0 = true }
            let scheme = provider.configuration.tls == nil ? "http" : "https"
            let base = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
            io.write(
                """
                herald serve: console \(base)\(loginPath) (signs in once)
                herald serve: provider API on \(base)/v1 (health /healthz, metrics /metrics\(metricsNote))
                  \(ProviderBanner.adminTokenLine(provider))
                  data: \(folder.path)

                """)
            RunningFile.write(
                to: folder, command: "herald serve",
                provider: .init(
                    url: base.replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1"),
                    adminTokenFile: adminToken == nil
                        ? RunningFile.absolute(folder.appendingPathComponent("admin-token").path) : nil))
        } onShutdown: {
            io.write("herald serve: stopping; finishing the deliveries in flight\n")
        }
        defer {
            RunningFile.remove(from: folder)
            withExtendedLifetime(lock) {}
        }
        do {
            // The exporter first: the group stops services in reverse, so it sends the provider's last spans.
            let exporter = traceExport.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0.service)] }
            try await CommandServices.run((exporter ?? []) + services, logger: logging.logger("herald-provider"))
        } catch  where !listened.withLock({ $0 }) {
            lock?.discardIfNew()
            throw CommandFailure.listening(error, what: "the provider API", host: host, port: port, option: "--port")
                ?? error
        }
    }

    /// What the console shows besides the provider: the gateway and devices named on the command line.
    private func consoleConfiguration() throws -> ConsolePlugin.Configuration {
        var gateway: ConsolePlugin.Gateway?
        if let text = gatewayAdmin, let url = URL(string: text) {
            let token: String
            do {
                token = try String(contentsOfFile: gatewayAdminTokenFile, encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw ValidationError(
                    "--gateway-admin needs the gateway's admin token: cannot read \(gatewayAdminTokenFile) (--gateway-admin-token-file)"
                )
            }
            gateway = .init(url: url, adminToken: token, caPEM: try? String(contentsOfFile: gatewayCA, encoding: .utf8))
        }
        return .init(gateway: gateway, deviceAPIs: deviceAPIs.compactMap { URL(string: $0) })
    }
}
