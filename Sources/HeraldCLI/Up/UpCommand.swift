import APNSCore
import APNSGateway
import ArgumentParser
import Crypto
import DeviceSimulator
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `herald up`: the whole system on embedded defaults in one process.
struct UpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Run a local APNs and a simulated device with the demo app, ready to push to.",
        discussion: "The provider service (herald serve) joins when it is built; see the README."
    )

    @Option(help: "Where everything is kept (gateway/, device/, the development signing key).")
    var data = "./.herald"

    @Option(name: .customLong("gateway-port"), help: "The local APNs' port.")
    var gatewayPort = 2197

    @Option(name: .customLong("api-port"), help: "The simulated device's JSON API port.")
    var apiPort = 2198

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
        io.write("herald up: local APNs on https://127.0.0.1:\(port) (CA \(caPath))\n")
        let manifest = try AppManifest(data: Data(DemoApp.manifest.utf8))
        let device = SimulatedDevice.Configuration(
            gatewayHost: "127.0.0.1", gatewayPort: port, caPEM: gateway.certificateAuthority.caCertificatePEM,
            apps: [manifest], dataDirectory: root.appendingPathComponent("device"))
        let session = DeviceSession(
            configuration: device, apiHost: "127.0.0.1", apiPort: apiPort, interactive: isatty(0) == 1
        ) { device in
            let token = device.installedApps.first?.token ?? "<token>"
            return """

                push to the demo app (\(manifest.bundleID)):
                  swift run herald send --url https://127.0.0.1:\(port) --ca-file \(caPath) \\
                    --auth-key \(DevelopmentSigningKey.teamID):\(DevelopmentSigningKey.keyID):\(key.path) \\
                    --topic \(manifest.bundleID) --token \(token) \\
                    --title hello --body 'it is a beautiful day' --category \(DemoApp.category) --mutable-content

                """
        }
        do {
            try await session.run()
        } catch {
            try? await gateway.shutdown()
            throw error
        }
        try await gateway.shutdown()
    }
}
