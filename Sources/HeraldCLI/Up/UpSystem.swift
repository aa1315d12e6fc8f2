import APNSCore
import APNSGateway
import DeviceSimulator
import Foundation
import HeraldConsole
import PushProvider

#if canImport(Glibc)
    import Glibc
#endif

/// What `herald up` runs, once it listens: the local APNs, the provider with the console, and the demo app.
struct UpSystem {
    let gateway: GatewayServer
    let gatewayPort: Int
    let provider: PushProviderService
    let providerTask: Task<Void, any Error>
    let providerURL: String
    let console: HeraldConsole
    let app: PushProviderService.AppHandle
    let key: DevelopmentSigningKey
    let manifest: AppManifest

    /// Starts the gateway and the provider; a port in use is said with the flag that changes it, and what had
    /// started stops again.
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
            return try await startProvider(command, root: root, gateway: gateway, gatewayPort: port, key: key)
        } catch {
            try? await gateway.shutdown()
            throw error
        }
    }

    private static func startProvider(
        _ command: UpCommand, root: URL, gateway: GatewayServer, gatewayPort port: Int, key: DevelopmentSigningKey
    ) async throws -> UpSystem {
        var providerConfiguration = PushProviderService.Configuration(dataDirectory: root)
        providerConfiguration.host = command.host
        providerConfiguration.port = command.providerPort
        providerConfiguration.allowedEndpoints =
            ["https://127.0.0.1:\(port)"] + (gateway.managementPort.map { ["https://127.0.0.1:\($0)"] } ?? [])
        let provider = try await PushProviderService(
            configuration: providerConfiguration, logger: command.logging.logger("herald-provider"))
        let console = try await HeraldConsole(
            configuration: .init(
                gateway: .init(
                    url: URL(string: "https://127.0.0.1:\(port)")!, adminToken: gateway.adminCredential.token,
                    caPEM: gateway.certificateAuthority.caCertificatePEM),
                deviceAPIs: []))
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let providerTask = Task {
            defer { portSink.finish() }
            try await provider.run(plugins: [console]) { portSink.yield($0) }
        }
        var portIterator = ports.makeAsyncIterator()
        guard let apiPort = await portIterator.next() else {
            do {
                try await providerTask.value
            } catch {
                throw CommandFailure.listening(
                    error, what: "the provider API", host: command.host, port: command.providerPort,
                    option: "--provider-port") ?? error
            }
            throw CommandFailure("the provider API stopped before it listened")
        }
        do {
            let manifest = try AppManifest(data: Data(DemoApp.manifest.utf8))
            let app = try await provider.ensureApp(
                .init(
                    name: "RITL demo", bundleID: manifest.bundleID, environment: "development",
                    endpoint: "https://127.0.0.1:\(port)", caPEM: gateway.certificateAuthority.caCertificatePEM,
                    teamID: DevelopmentSigningKey.teamID, keyID: DevelopmentSigningKey.keyID,
                    privateKeyPEM: try String(contentsOfFile: key.path, encoding: .utf8),
                    channelEndpoint: gateway.managementPort.map { "https://127.0.0.1:\($0)" }))
            if let config = UpCommand.notificationConfig(of: DemoApp.manifest) {
                try await provider.setCategories(appID: app.id, notificationConfig: config)
            }
            return UpSystem(
                gateway: gateway, gatewayPort: port, provider: provider, providerTask: providerTask,
                providerURL: "http://127.0.0.1:\(apiPort)", console: console, app: app, key: key, manifest: manifest)
        } catch {
            providerTask.cancel()
            _ = await providerTask.result
            throw error
        }
    }

    /// What `herald up` prints once the gateway and the provider listen.
    var banner: String {
        """
        herald up: console \(console.loginLink(base: providerURL, key: provider.adminToken)) (signs in once)
        herald up: local APNs on https://127.0.0.1:\(gatewayPort) (CA \(gateway.certificateAuthority.caPath.path))
        herald up: provider API on \(providerURL)/v1 (metrics \(providerURL)/metrics)
        herald up: provider \(ProviderBanner.adminTokenLine(provider))
        herald up: gateway \(GatewayBanner.adminLine(gateway.adminCredential))

        """
    }

    /// Runs the simulated device with the demo app until SIGINT, SIGTERM or `quit`.
    func runDevice(_ command: UpCommand, root: URL) async throws {
        var device = SimulatedDevice.Configuration(
            gatewayHost: "127.0.0.1", gatewayPort: gatewayPort, caPEM: gateway.certificateAuthority.caCertificatePEM,
            apps: [manifest], dataDirectory: root.appendingPathComponent("device"))
        device.registerURL = URL(string: "\(providerURL)/v1/devices?key=\(app.publishableKey)")
        device.reportURL = URL(string: "\(providerURL)/v1/feedback?key=\(app.publishableKey)")
        device.user = (DemoApp.user, provider.userToken(appID: app.id, userID: DemoApp.user))
        device.logger = command.logging.logger("herald-device")
        device.allowedAttachmentHosts = command.allowedAttachmentHosts
        var session = DeviceSession(
            configuration: device, apiHost: "127.0.0.1", apiPort: command.deviceAPIPort,
            apiPortOption: "--device-api-port", interactive: isatty(0) == 1
        ) { device in
            examples(token: device.installedApps.first?.token ?? "<token>")
        }
        let (console, running) = (console, runningFile(root: root))
        session.onAPIListening = { port in
            console.showDevices(at: [URL(string: "http://127.0.0.1:\(port)")!])
            running("http://127.0.0.1:\(port)")
        }
        defer { RunningFile.remove(from: root) }
        try await session.run()
    }

    /// Writes `DATA/running.json` once the device's API listens (at the URL it is given).
    private func runningFile(root: URL) -> @Sendable (String) -> Void {
        let gateway = RunningFile.Gateway(
            url: "https://127.0.0.1:\(gatewayPort)",
            caFile: RunningFile.absolute(gateway.certificateAuthority.caPath.path),
            adminTokenFile: RunningFile.absolute(root.appendingPathComponent("gateway/admin-token").path))
        let provider = RunningFile.Provider(
            url: providerURL,
            adminTokenFile: RunningFile.absolute(self.provider.configuration.providerDirectory.path + "/admin-token"))
        return { deviceAPI in
            RunningFile.write(
                to: root, command: "herald up", gateway: gateway, provider: provider, deviceAPI: deviceAPI)
        }
    }

    /// The commands printed after the device's banner: a push through the provider, and one straight to the gateway
    /// with the binary the user ran.
    private func examples(token: String) -> String {
        let caPath = gateway.certificateAuthority.caPath.path
        return """

            push to every device of the demo app through the provider:
              curl -X POST '\(providerURL)/v1/notifications?app=\(app.id)' \\
                -H "Authorization: Bearer \(ProviderBanner.adminTokenWord(provider))" -H 'Content-Type: application/json' \\
                -d '{"target": {"all": true}, "content": {"title": "hello", "body": "it is a beautiful day", "category": "\(DemoApp.category)", "mutableContent": true}}'
              (then GET \(providerURL)/v1/notifications/<id>?app=\(app.id) for its deliveries, and .../responses for the user's answers)

            or straight to the local APNs:
              \(RunningBinary.command) send --url https://127.0.0.1:\(gatewayPort) --ca-file \(caPath) \\
                --auth-key \(DevelopmentSigningKey.teamID):\(DevelopmentSigningKey.keyID):\(key.path) \\
                --topic \(manifest.bundleID) --token \(token) \\
                --title hello --body 'it is a beautiful day' --category \(DemoApp.category) --mutable-content

            """
    }

    /// Stops the provider and the gateway.
    func stop() async {
        providerTask.cancel()
        _ = await providerTask.result
        try? await gateway.shutdown()
    }
}
