import APNSCore
import APNSGateway
import DeviceSimulator
import Foundation
import HeraldConsole
import HeraldSupport
import PushProvider
import ServiceLifecycle

/// What `herald up` runs, as a list of services (``services``): the local APNs, the provider with the console, and the
/// demo app on a simulated device. SIGINT or SIGTERM stops them in the reverse order.
struct UpSystem {
    let command: UpCommand
    let root: URL
    let gateway: GatewayServer
    let gatewayPort: Int
    let provider: PushProviderService
    let console: ConsolePlugin
    let key: DevelopmentSigningKey
    /// The services that export the gateway's, the provider's and the device's traces (`--otlp-endpoint`); none
    /// when they are off.
    var traceExporters: [any Service] = []
    /// Where the simulated device's spans go.
    var deviceTracer: HeraldTracer?
    /// Shuts `herald up` down after the device terminal's `quit`.
    let shutdown = CommandShutdown()

    /// Starts the gateway (so a port in use is said with the flag that changes it before anything else runs) and
    /// makes the provider and the console.
    static func start(_ command: UpCommand, root: URL) async throws -> UpSystem {
        let key = try DevelopmentSigningKey.loadOrCreate(in: root)
        var verifier = APNSProviderTokenVerifier()
        try verifier.addKey(
            pem: key.publicKeyPEM, keyID: DevelopmentSigningKey.keyID, teamID: DevelopmentSigningKey.teamID)
        var gatewayConfiguration = GatewayServer.Configuration(dataDirectory: root.appendingPathComponent("gateway"))
        gatewayConfiguration.host = command.host
        gatewayConfiguration.port = command.gatewayPort
        gatewayConfiguration.managePort = command.managePort
        gatewayConfiguration.logger = command.logging.logger("herald-gateway")
        // Each part exports as the service it is, as `herald gateway`, `herald serve` and `herald device` would.
        let gatewayTraces = try command.traces.backend(serviceName: "herald-gateway")
        let deviceTraces = try command.traces.backend(serviceName: "herald-device")
        gatewayConfiguration.tracer = gatewayTraces?.tracer
        let gateway = try GatewayServer(configuration: gatewayConfiguration, verifier: verifier)
        let port: Int
        do {
            port = try await gateway.start()
        } catch let failure as GatewayServer.ChannelManagementListenFailure {
            throw CommandFailure.listening(
                failure.underlying, what: "the channel management API", host: command.host, port: command.managePort,
                option: "--manage-port") ?? failure
        } catch {
            throw CommandFailure.listening(
                error, what: "the local APNs", host: command.host, port: command.gatewayPort, option: "--gateway-port")
                ?? error
        }
        do {
            var providerConfiguration = PushProviderService.Configuration(dataDirectory: root)
            providerConfiguration.host = command.host
            providerConfiguration.port = command.providerPort
            let traceExport = try command.traces.backend(serviceName: "herald-provider")
            providerConfiguration.tracer = traceExport?.tracer
            providerConfiguration.allowedEndpoints =
                ["https://127.0.0.1:\(port)"] + (gateway.managementPort.map { ["https://127.0.0.1:\($0)"] } ?? [])
            let provider = try await PushProviderService(
                configuration: providerConfiguration,
                logger: command.logging.logger("herald-provider", metadataProvider: traceExport?.tracer.logMetadata))
            let console = try await ConsolePlugin(
                configuration: .init(
                    gateway: .init(
                        url: URL(string: "https://127.0.0.1:\(port)")!, adminToken: gateway.adminCredential.token,
                        caPEM: gateway.certificateAuthority.caCertificatePEM),
                    deviceAPIs: [],
                    sendFiles: .init(
                        command: RunningBinary.command,
                        keyFiles: [DevelopmentSigningKey.keyID: RunningFile.absolute(key.path)],
                        caFiles: [
                            "https://127.0.0.1:\(port)": RunningFile.absolute(gateway.certificateAuthority.caPath.path)
                        ]),
                    clock: provider.configuration.clock))
            return UpSystem(
                command: command, root: root, gateway: gateway, gatewayPort: port, provider: provider,
                console: console, key: key,
                traceExporters: [gatewayTraces?.service, traceExport?.service, deviceTraces?.service].compactMap { $0 },
                deviceTracer: deviceTraces?.tracer)
        } catch {
            try? await gateway.shutdown()
            throw error
        }
    }

    /// The gateway, the provider's parts with the console, and the demo (which waits for the provider to listen), in
    /// one group. The demo ending (`quit` on its terminal) shuts the others down; a failure of one cancels the rest.
    func services() throws -> [ServiceGroupConfiguration.ServiceConfiguration] {
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        // The exporter first: the group stops services in reverse, so it sends the last spans.
        return traceExporters.map { .init(service: $0) } + [.init(service: gateway)]
            + (try provider.services(plugins: [console]) { listening.yield($0) })
            + [
                .init(
                    service: UpDemo(system: self, providerPorts: ports),
                    successTerminationBehavior: .gracefullyShutdownGroup)
            ]
    }
}
