import APNSCore
import APNSGateway
import DeviceSimulator
import Foundation
import HeraldConsole
import ProviderStorage
import PushProvider
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// `herald up`'s last service: once the provider listens, the demo app (made or found on the provider, with its
/// categories), the banner, and a simulated device with the app until the group shuts down or `quit`.
struct UpDemo: Service {
    let system: UpSystem
    /// The provider API's port, once it listens; finished if it stops first.
    let providerPorts: AsyncStream<Int>

    func run() async throws {
        var ports = providerPorts.makeAsyncIterator()
        // No port: the provider stopped before it listened, and its error ends the group.
        guard let apiPort = await ports.next() else { return }
        let providerURL = "http://127.0.0.1:\(apiPort)"
        let gateway = system.gateway
        let manifest = try AppManifest(data: Data(DemoApp.manifest.utf8))
        let app = try await system.provider.apps.ensure(
            .init(
                name: "RITL demo", bundleID: manifest.bundleID, environment: "development",
                endpoint: "https://127.0.0.1:\(system.gatewayPort)",
                caPEM: gateway.certificateAuthority.caCertificatePEM,
                teamID: DevelopmentSigningKey.teamID, keyID: DevelopmentSigningKey.keyID,
                privateKeyPEM: try String(contentsOfFile: system.key.path, encoding: .utf8),
                channelEndpoint: gateway.managementPort.map { "https://127.0.0.1:\($0)" }))
        if let config = UpCommand.notificationConfig(of: DemoApp.manifest) {
            try await system.provider.apps.setCategories(appID: app.id, notificationConfig: config)
        }
        let loginPath = try await system.console.loginPath(key: system.provider.adminToken, provider: system.provider)
        let demo = ListeningDemo(
            system: system, providerURL: providerURL, app: app, manifest: manifest, loginPath: loginPath)
        let io = CommandIO.current
        io.write(demo.banner)
        if RunningBinary.isDebugBuild { io.write("herald up: note: \(RunningBinary.releaseAdvice)\n") }
        try await demo.runDevice()
    }
}

/// The demo once the provider listens: what `herald up` prints, and the device it runs.
private struct ListeningDemo {
    let system: UpSystem
    let providerURL: String
    let app: ProviderApp
    let manifest: AppManifest
    /// The console's one-time sign-in path for the admin token.
    let loginPath: String

    private var command: UpCommand { system.command }
    private var root: URL { system.root }
    private var gateway: GatewayServer { system.gateway }
    private var gatewayPort: Int { system.gatewayPort }
    private var provider: PushProviderService { system.provider }
    private var console: ConsolePlugin { system.console }
    private var key: DevelopmentSigningKey { system.key }

    /// What `herald up` prints once the gateway and the provider listen.
    var banner: String {
        """
        herald up: console \(providerURL)\(loginPath) (signs in once)
        herald up: local APNs on https://127.0.0.1:\(gatewayPort) (CA \(gateway.certificateAuthority.caPath.path))
        herald up: provider API on \(providerURL)/v1 (metrics \(providerURL)/metrics)
        herald up: provider \(ProviderBanner.adminTokenLine(provider))
        herald up: gateway \(GatewayBanner.adminLine(gateway.adminCredential))

        """
    }

    /// Runs the simulated device with the demo app until the group shuts down or `quit`.
    func runDevice() async throws {
        var device = SimulatedDevice.Configuration(
            gatewayHost: "127.0.0.1", gatewayPort: gatewayPort, caPEM: gateway.certificateAuthority.caCertificatePEM,
            apps: [manifest], dataDirectory: root.appendingPathComponent("device"))
        device.registerURL = URL(string: "\(providerURL)/v1/devices?key=\(app.publishableKey)")
        device.reportURL = URL(string: "\(providerURL)/v1/feedback?key=\(app.publishableKey)")
        device.user = (DemoApp.user, provider.apps.userToken(appID: app.id, userID: DemoApp.user))
        device.logger = command.logging.logger("herald-device")
        device.allowedAttachmentHosts = command.allowedAttachmentHosts
        device.tracer = system.deviceTracer
        var session = DeviceSession(
            configuration: device, apiHost: "127.0.0.1", apiPort: command.deviceAPIPort,
            apiPortOption: "--device-api-port", interactive: isatty(0) == 1
        ) { device in
            examples(token: device.installedApps.first?.token ?? "<token>")
        }
        session.shutdown = system.shutdown
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
            manageURL: gateway.managementPort.map { "https://127.0.0.1:\($0)" },
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
              (then GET \(providerURL)/v1/notifications/<id>?app=\(app.id) for its counts, <id>/deliveries?app=\(app.id) for each device, <id>/responses?app=\(app.id) for the user's answers)

            or straight to the local APNs:
              \(RunningBinary.command) send --url https://127.0.0.1:\(gatewayPort) --ca-file \(caPath) \\
                --auth-key \(DevelopmentSigningKey.teamID):\(DevelopmentSigningKey.keyID):\(key.path) \\
                --topic \(manifest.bundleID) --token \(token) \\
                --title hello --body 'it is a beautiful day' --category \(DemoApp.category) --mutable-content

            """
    }
}
