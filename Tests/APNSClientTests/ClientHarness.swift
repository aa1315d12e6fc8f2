import APNSClient
import APNSCore
import APNSGateway
import Crypto
import Foundation
import NIOCore

/// A live gateway on a free port, a development device of `com.example.app`, and clients that trust the gateway's CA.
struct ClientHarness {
    let server: GatewayServer
    let port: Int
    let signer: APNSProviderTokenSigner
    let device: DeviceRegistry.Device

    /// Runs `body` against a fresh gateway, then stops it.
    static func with(_ body: (ClientHarness) async throws -> Void) async throws {
        let key = P256.Signing.PrivateKey()
        var verifier = APNSProviderTokenVerifier()
        try verifier.addKey(pem: key.publicKey.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        var configuration = GatewayServer.Configuration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString)"))
        configuration.port = 0
        let server = try GatewayServer(configuration: configuration, verifier: verifier)
        let port = try await server.start()
        let signer = try APNSProviderTokenSigner(
            privateKeyPEM: key.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let device = try server.registry.register(bundleID: "com.example.app", environment: .development)
        let harness = ClientHarness(server: server, port: port, signer: signer, device: device)
        do {
            try await body(harness)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// The client's configuration for this gateway, with token authentication.
    func configuration() throws -> APNSClient.Configuration {
        APNSClient.Configuration(
            endpoint: try APNSEndpoint(
                url: "https://127.0.0.1:\(port)",
                additionalTrustRootsPEM: server.certificateAuthority.caCertificatePEM),
            authentication: .token(signer)
        )
    }

    /// A client for this gateway; `adjust` changes its configuration first.
    func client(_ adjust: (inout APNSClient.Configuration) -> Void = { _ in }) throws -> APNSClient {
        var configuration = try configuration()
        adjust(&configuration)
        return try APNSClient(configuration: configuration)
    }

    /// An alert for `token` (the harness's device by default) to `com.example.app`.
    func notification(
        to token: String? = nil, headers: APNSRequestHeaders = APNSRequestHeaders(topic: "com.example.app")
    )
        -> APNSNotification
    {
        APNSNotification(
            deviceToken: token ?? device.token.hex, headers: headers,
            payload: ByteBuffer(string: #"{"aps":{"alert":"Hello"}}"#))
    }
}
