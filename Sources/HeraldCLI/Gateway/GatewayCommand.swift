import APNSCore
import APNSGateway
import ArgumentParser
import Courier
import Foundation
import HeraldSupport
import ServiceLifecycle

/// `herald gateway`: run the local APNs.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Run a local APNs that answers providers as Apple's does (HTTP/2, TLS, JWT)."
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (APNs' alternate port by default).")
    var port = 2197

    @Option(
        name: .customLong("manage-port"),
        help: "The port of the channel management API for broadcast channels (Apple's development port by default).")
    var managePort = 2195

    @Option(help: "Where the CA, certificates and data are kept.")
    var data = "./.herald/gateway"

    @Option(help: "The environment for host names that are not Apple's: development or production.")
    var environment = "development"

    @Option(
        name: .customLong("auth-key"),
        help: "A signing key: TEAMID:KEYID:PATH[:TOPIC,TOPIC...] (PATH is the .p8 or its public key). Repeatable."
    )
    var authKeys: [String] = []

    @Option(name: .customLong("example-topic"), help: "The app the printed example device token is made for.")
    var exampleTopic = "com.example.app"

    @Option(
        name: .customLong("max-connections"),
        help: "The most connections open at once; one over it is closed as soon as it is accepted.")
    var maxConnections = 10_000

    @Option(
        name: .customLong("token-creation-limit"),
        help: "New device tokens one address may create per minute (courier registrations and the admin API).")
    var tokenCreationLimit = 1_000_000

    @Flag(
        name: .customLong("insecure-admin"),
        help: "Let anyone who reaches the port use the admin API without the admin token (loopback --host only).")
    var insecureAdmin = false

    @Flag(
        name: .customLong("no-journal"),
        help: ArgumentHelp(
            "Load-test mode: keep devices, stored pushes and channels in memory only (no disk write per push; "
                + "all lost when the gateway stops).",
            discussion: "The data folder still holds the CA, the certificates and the admin token; a journal "
                + "already there is neither read nor changed."))
    var noJournal = false

    @OptionGroup var logging: LoggingOptions
    @OptionGroup var traces: TraceOptions

    func run() async throws {
        let traceExport = try traces.backend(serviceName: "herald-gateway")
        let io = CommandIO.current
        guard let environment = APNSEnvironment(name: environment) else {
            throw UsageError("--environment is development or production, not '\(environment)'")
        }
        let keys = try authKeys.map(AuthKeyOption.init(parsing:))
        var verifier = APNSProviderTokenVerifier()
        for key in keys {
            do {
                try verifier.addKey(pem: key.pem, keyID: key.keyID, teamID: key.teamID, topics: key.topics)
            } catch {
                throw UsageError("--auth-key \(key.keyID): \(error.message)")
            }
        }
        guard maxConnections >= 1 else { throw UsageError("--max-connections must be 1 or more") }
        guard tokenCreationLimit >= 1 else { throw UsageError("--token-creation-limit must be 1 or more") }
        let lock = try DataFolderLock(URL(fileURLWithPath: data), command: "herald gateway")
        let (server, boundPort): (GatewayServer, Int)
        do {
            (server, boundPort) = try await start(
                verifier: verifier, environment: environment, tracer: traceExport?.tracer)
        } catch {
            lock.discardIfNew()
            throw error
        }
        let device = try server.registry.register(
            bundleID: exampleTopic, environment: environment,
            token: ExampleDeviceToken.token(for: exampleTopic, environment: environment)
        ).device
        let jwt = await keys.first?.exampleToken()
        io.write(
            GatewayBanner(
                host: host,
                port: boundPort,
                managePort: server.managementPort,
                caPath: server.certificateAuthority.caPath.path,
                token: device.token.hex,
                topic: exampleTopic,
                jwt: jwt,
                hasKeys: !keys.isEmpty,
                sendAuthKey: jwt == nil
                    ? nil : keys.first.map { "\($0.teamID):\($0.keyID):\(URL(fileURLWithPath: $0.path).path)" },
                admin: server.adminCredential,
                journal: !noJournal
            ).text
        )
        let folder = URL(fileURLWithPath: data)
        RunningFile.write(
            to: folder, command: "herald gateway",
            gateway: .init(
                url: "https://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(boundPort)",
                manageURL: server.managementPort.map { "https://\(host == "0.0.0.0" ? "127.0.0.1" : host):\($0)" },
                caFile: RunningFile.absolute(server.certificateAuthority.caPath.path),
                adminTokenFile: RunningFile.absolute(folder.appendingPathComponent("admin-token").path)))
        defer {
            RunningFile.remove(from: folder)
            withExtendedLifetime(lock) {}
        }
        // The exporter first: the group stops services in reverse, so it sends the last spans.
        let exporter = traceExport.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0.service)] } ?? []
        try await CommandServices.run(exporter + [.init(service: server)], logger: logging.logger("herald-gateway"))
    }

    /// The gateway, listening.
    private func start(
        verifier: APNSProviderTokenVerifier, environment: APNSEnvironment, tracer: HeraldTracer?
    ) async throws -> (GatewayServer, Int) {
        var configuration = GatewayServer.Configuration(dataDirectory: URL(fileURLWithPath: data))
        configuration.host = host
        configuration.port = port
        configuration.managePort = managePort
        configuration.environment = environment
        configuration.insecureAdmin = insecureAdmin
        configuration.journal = !noJournal
        configuration.maxConnections = maxConnections
        configuration.tokenCreationsPerMinute = tokenCreationLimit
        configuration.logger = logging.logger("herald-gateway")
        configuration.tracer = tracer
        let server: GatewayServer
        do {
            server = try GatewayServer(configuration: configuration, verifier: verifier)
        } catch let error as GatewayDataError {
            throw UsageError(error.message)
        }
        do {
            return (server, try await server.start())
        } catch let failure as GatewayServer.ChannelManagementListenFailure {
            throw CommandFailure.listening(
                failure.underlying, what: "the channel management API", host: host, port: managePort,
                option: "--manage-port") ?? failure
        } catch {
            throw CommandFailure.listening(error, what: "the local APNs", host: host, port: port, option: "--port")
                ?? error
        }
    }
}
