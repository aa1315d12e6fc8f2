package import APNSCore
package import APNSGateway
package import Crypto
package import Foundation
import HeraldTesting
import TestPacing

/// A gateway for live tests: a fresh data directory (or a given one), port 0, and one trusted key (key ID ABC123DEFG,
/// team DEF123GHIJ) with a signer for it.
package struct TestGateway: Sendable {
    package let server: GatewayServer
    package let port: Int
    /// The channel management API's port.
    package var managePort: Int { server.managementPort ?? 0 }
    package let key: P256.Signing.PrivateKey
    package let signer: APNSProviderTokenSigner
    package let directory: URL

    /// Starts a gateway trusting `key`; a restart on the same `directory` keeps what the gateway stored there.
    /// `configure` changes the configuration before the gateway starts.
    package static func start(
        directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString)"),
        key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        configure: (inout GatewayServer.Configuration) -> Void = { _ in }
    ) async throws -> TestGateway {
        ServerSlots.requireSlot("a gateway")
        let apns = try await LocalAPNs.start(directory: directory, key: key, configure: configure)
        return TestGateway(server: apns.server, port: apns.port, key: key, signer: apns.signer, directory: directory)
    }

    /// Runs `body`, then stops the gateway, whether `body` threw or not.
    package func run(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}
