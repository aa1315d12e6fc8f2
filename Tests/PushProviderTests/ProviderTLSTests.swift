import APNSGateway
import AsyncHTTPClient
import Foundation
import GatewayTestSupport
import NIOCore
import NIOHTTP1
import NIOSSL
import PushProvider
import TestPacing
import Testing

@Suite("herald serve --tls-cert/--tls-key: the API and the console over HTTPS", .startsServers)
struct ProviderTLSTests {
    @Test("with a certificate the API answers over HTTPS to a client that trusts its CA, and not in plain HTTP")
    func https() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.run {
            // The gateway's CA and its server certificate for 127.0.0.1 stand in for the user's own.
            let folder = gateway.server.certificateAuthority.caPath.deletingLastPathComponent()
            var configuration = PushProviderService.Configuration(
                dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID())"))
            configuration.port = 0
            configuration.tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(folder.appendingPathComponent("server.pem").path)
                    .map { .certificate($0) },
                privateKey: .privateKey(
                    try NIOSSLPrivateKey(file: folder.appendingPathComponent("server-key.pem").path, format: .pem)))
            let provider = try await PushProviderService(configuration: configuration, logger: ProviderHarness.logger)
            let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
            let service = Task { try await provider.run { port in portSink.yield(port) } }
            defer { service.cancel() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(
                try NIOSSLCertificate.fromPEMFile(gateway.server.certificateAuthority.caPath.path))
            let client = HTTPClient(configuration: .init(tlsConfiguration: tls))
            // Shut down whatever happens: a client dropped unshut ends the test process.
            do {
                let secure = try await client.execute(
                    HTTPClientRequest(url: "https://127.0.0.1:\(port)/healthz"), timeout: .seconds(30))
                #expect(secure.status.code == 200)
                await #expect(throws: (any Error).self) {
                    _ = try await client.execute(
                        HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(30))
                }
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
}
