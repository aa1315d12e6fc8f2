import APNSCore
import AsyncHTTPClient
import DeviceSimulator
import Foundation
import HeraldTesting
import NIOCore
import NIOHTTP1
import NIOSSL
import TestPacing
import Testing

/// What a server's own tests meet when they use HeraldTesting with their own HTTP client and isolation.
@Suite("HeraldTesting with others' clients and actors", .startsServers)
struct OtherClientsTests {
    @Test(
        "AsyncHTTPClient (APNSwift's client), a debug build, sends pushes over one connection as the stream limit rises"
    )
    func asyncHTTPClient() async throws {
        try await LocalAPNs.run { apns in
            let device = try await apns.startDevice(
                apps: [try AppManifest(data: Data(#"{"bundleID": "com.example.app"}"#.utf8))])
            let token = try device.token(for: "com.example.app")
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(apns.caCertificatePEM.utf8)))
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.httpVersion = .automatic
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            // Shut down whatever happens: a client dropped unshut ends the test process.
            do {
                try await Self.sendThree(with: client, apns: apns, token: token)
            } catch {
                try? await client.shutdown()
                throw error
            }
            _ = try await device.next(.displayed)
            try await client.shutdown()
            await device.stop()
        }
    }

    /// Three pushes through `client`, each answered 200 over HTTP/2.
    private static func sendThree(with client: HTTPClient, apns: LocalAPNs, token: String) async throws {
        let jwt = try await apns.signer.token(issuedAt: Date()).jwt
        var statuses: [UInt] = []
        for index in 0..<3 {
            var request = HTTPClientRequest(url: "\(apns.url)/3/device/\(token)")
            request.method = .POST
            request.headers.add(name: "authorization", value: "bearer \(jwt)")
            request.headers.add(name: "apns-topic", value: "com.example.app")
            request.headers.add(name: "apns-push-type", value: "alert")
            request.body = .bytes(ByteBuffer(string: #"{"aps":{"alert":"hello \#(index)"}}"#))
            let response = try await client.execute(request, timeout: .seconds(60))
            #expect(response.version == .http2)
            statuses.append(response.status.code)
            _ = try await response.body.collect(upTo: 1 << 16)
        }
        #expect(statuses == [200, 200, 200])
    }

    @Test("LocalAPNs.run from a main-actor test: the closure keeps the caller's isolation")
    @MainActor
    func mainActorCaller() async throws {
        var seenOnMain: [Int] = []
        let port = try await LocalAPNs.run { apns in
            MainActor.assertIsolated()
            seenOnMain.append(apns.port)
            return apns.port
        }
        #expect(seenOnMain == [port] && port > 0)
    }
}
