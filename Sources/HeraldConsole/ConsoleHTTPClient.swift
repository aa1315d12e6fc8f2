import AsyncHTTPClient
package import Foundation
import NIOCore
import NIOFoundationCompat
package import NIOHTTP1
import NIOSSL

/// The console's client for the services it reads on the user's behalf: the local gateway's admin API and the
/// simulated devices' APIs. Only addresses the operator configured are ever called; answers are capped in size.
package struct ConsoleHTTPClient: Sendable {
    /// What a service answered.
    package struct Answer: Sendable {
        package var status: Int
        package var contentType: String?
        package var body: Data
    }

    /// The largest answer read (an attachment can be a video).
    static let answerLimit = 32 << 20

    private let client: HTTPClient

    /// - Parameter caPEM: an extra CA to trust (the local gateway's).
    /// - Throws: when `caPEM` holds no certificate.
    package init(caPEM: String?) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caPEM {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(caPEM.utf8)))
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        // The connect time covers the TLS handshake: on a loaded two-core machine a local one took over 3 seconds.
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(10))
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Sends one request and reads the whole answer.
    package func send(_ method: HTTPMethod, _ url: URL, body: Data? = nil, bearer: String? = nil) async throws -> Answer
    {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(request, timeout: .seconds(10))
        let buffer = try await response.body.collect(upTo: Self.answerLimit)
        return Answer(
            status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
            body: Data(buffer: buffer))
    }

    /// Closes the client's connections.
    package func shutdown() async {
        try? await client.shutdown()
    }
}
