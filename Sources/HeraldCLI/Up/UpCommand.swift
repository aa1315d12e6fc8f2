import APNSCore
import APNSGateway
import ArgumentParser
import Crypto
import DeviceSimulator
import Foundation
import HeraldConsole
import PushProvider

#if canImport(Glibc)
    import Glibc
#endif

/// `herald up`: the whole system on embedded defaults in one process.
struct UpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Run the whole system: a local APNs, the provider on SQLite and a simulated device with the demo app."
    )

    @Option(help: "Where everything is kept (gateway/, provider/, device/, the development signing key).")
    var data = "./.herald"

    @Option(name: .customLong("gateway-port"), help: "The local APNs' port.")
    var gatewayPort = 2197

    @Option(name: .customLong("provider-port"), help: "The provider API's port.")
    var providerPort = 8080

    @Option(
        name: [.customLong("device-api-port"), .customLong("api-port")], help: "The simulated device's JSON API port.")
    var deviceAPIPort = 2198

    @Option(
        name: .customLong("allow-attachment-host"),
        help: "A host (or host:port) on a loopback or private address the device may download media from. Repeatable.")
    var allowedAttachmentHosts: [String] = []

    func run() async throws {
        let io = CommandIO.current
        let root = URL(fileURLWithPath: data)
        let key = try DevelopmentSigningKey.loadOrCreate(in: root)
        var verifier = APNSProviderTokenVerifier()
        try verifier.addKey(
            pem: key.publicKeyPEM, keyID: DevelopmentSigningKey.keyID, teamID: DevelopmentSigningKey.teamID)
        var gatewayConfiguration = GatewayServer.Configuration(dataDirectory: root.appendingPathComponent("gateway"))
        gatewayConfiguration.port = gatewayPort
        let gateway = try GatewayServer(configuration: gatewayConfiguration, verifier: verifier)
        let port = try await gateway.start()
        let caPath = gateway.certificateAuthority.caPath.path
        var providerConfiguration = PushProviderService.Configuration(dataDirectory: root)
        providerConfiguration.port = providerPort
        providerConfiguration.allowedEndpoints = ["https://127.0.0.1:\(port)"]
        let provider = try await PushProviderService(configuration: providerConfiguration)
        let console = try await HeraldConsole(
            configuration: .init(
                gateway: .init(
                    url: URL(string: "https://127.0.0.1:\(port)")!, adminToken: gateway.adminCredential.token,
                    caPEM: gateway.certificateAuthority.caCertificatePEM),
                deviceAPIs: []))
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let providerTask = Task { try await provider.run(plugins: [console]) { portSink.yield($0) } }
        defer { providerTask.cancel() }
        var portIterator = ports.makeAsyncIterator()
        guard let apiPort = await portIterator.next() else {
            try? await gateway.shutdown()
            return try await providerTask.value
        }
        let manifest = try AppManifest(data: Data(DemoApp.manifest.utf8))
        let app = try await provider.ensureApp(
            .init(
                name: "RITL demo", bundleID: manifest.bundleID, environment: "development",
                endpoint: "https://127.0.0.1:\(port)", caPEM: gateway.certificateAuthority.caCertificatePEM,
                teamID: DevelopmentSigningKey.teamID, keyID: DevelopmentSigningKey.keyID,
                privateKeyPEM: try String(contentsOfFile: key.path, encoding: .utf8)))
        if let config = Self.notificationConfig(of: DemoApp.manifest) {
            try await provider.setCategories(appID: app.id, notificationConfig: config)
        }
        let providerURL = "http://127.0.0.1:\(apiPort)"
        io.write(
            """
            herald up: console \(console.loginLink(base: providerURL, key: provider.adminToken)) (signs in once)
            herald up: local APNs on https://127.0.0.1:\(port) (CA \(caPath))
            herald up: provider API on \(providerURL)/v1 (metrics \(providerURL)/metrics)
            herald up: provider \(ProviderBanner.adminTokenLine(provider))
            herald up: gateway \(GatewayBanner.adminLine(gateway.adminCredential))

            """)
        var device = SimulatedDevice.Configuration(
            gatewayHost: "127.0.0.1", gatewayPort: port, caPEM: gateway.certificateAuthority.caCertificatePEM,
            apps: [manifest], dataDirectory: root.appendingPathComponent("device"))
        device.registerURL = URL(string: "\(providerURL)/v1/devices?key=\(app.publishableKey)")
        device.reportURL = URL(string: "\(providerURL)/v1/feedback?key=\(app.publishableKey)")
        device.user = (DemoApp.user, provider.userToken(appID: app.id, userID: DemoApp.user))
        device.allowedAttachmentHosts = allowedAttachmentHosts
        var session = DeviceSession(
            configuration: device, apiHost: "127.0.0.1", apiPort: deviceAPIPort, interactive: isatty(0) == 1
        ) { device in
            let token = device.installedApps.first?.token ?? "<token>"
            return """

                push to every device of the demo app through the provider:
                  curl -X POST '\(providerURL)/v1/notifications?app=\(app.id)' \\
                    -H "Authorization: Bearer \(ProviderBanner.adminTokenWord(provider))" -H 'Content-Type: application/json' \\
                    -d '{"target": {"all": true}, "content": {"title": "hello", "body": "it is a beautiful day", "category": "\(DemoApp.category)", "mutableContent": true}}'
                  (then GET \(providerURL)/v1/notifications/<id>?app=\(app.id) for its deliveries and the user's answers)

                or straight to the local APNs:
                  swift run herald send --url https://127.0.0.1:\(port) --ca-file \(caPath) \\
                    --auth-key \(DevelopmentSigningKey.teamID):\(DevelopmentSigningKey.keyID):\(key.path) \\
                    --topic \(manifest.bundleID) --token \(token) \\
                    --title hello --body 'it is a beautiful day' --category \(DemoApp.category) --mutable-content

                """
        }
        session.onAPIListening = { port in console.showDevices(at: [URL(string: "http://127.0.0.1:\(port)")!]) }
        do {
            try await session.run()
        } catch {
            providerTask.cancel()
            _ = await providerTask.result
            try? await gateway.shutdown()
            throw error
        }
        providerTask.cancel()
        _ = await providerTask.result
        try await gateway.shutdown()
    }

    /// The `NotificationConfig` object of an app manifest, as JSON.
    static func notificationConfig(of manifest: String) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(manifest.utf8)) as? [String: Any],
            let config = object["NotificationConfig"]
        else { return nil }
        return try? JSONSerialization.data(withJSONObject: config)
    }
}
