import APNSClient
import APNSCore
import APNSGateway
import Foundation
import GatewayTestSupport
import NIOCore
import TestPacing

/// A live gateway on a free port, a development device of `com.example.app`, and clients that trust the gateway's CA.
struct ClientHarness {
    let server: GatewayServer
    let port: Int
    let signer: APNSProviderTokenSigner
    let device: DeviceRegistry.Device

    /// Runs `body` against a fresh gateway, then stops it.
    static func with(_ body: (ClientHarness) async throws -> Void) async throws {
        ServerSlots.requireSlot("a gateway")
        let gateway = try await TestGateway.start()
        let device = try gateway.server.registry.register(bundleID: "com.example.app", environment: .development).device
        let harness = ClientHarness(server: gateway.server, port: gateway.port, signer: gateway.signer, device: device)
        try await gateway.run { try await body(harness) }
    }

    /// The client's configuration for this gateway, with token authentication.
    func configuration() throws -> APNSPushClient.Configuration {
        APNSPushClient.Configuration(
            endpoint: try APNSEndpoint(
                url: "https://127.0.0.1:\(port)",
                additionalTrustRootsPEM: server.certificateAuthority.caCertificatePEM),
            authentication: .token(signer)
        )
    }

    /// A client for this gateway; `adjust` changes its configuration first.
    func client(_ adjust: (inout APNSPushClient.Configuration) -> Void = { _ in }) throws -> APNSPushClient {
        var configuration = try configuration()
        adjust(&configuration)
        return try APNSPushClient(configuration: configuration)
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
