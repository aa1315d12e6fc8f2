import Foundation
import GatewayTestSupport
import Hummingbird
import Logging
import TestPacing

/// A real HTTP server on a free port serving one folder's files (with their MIME types), for the service
/// extensions' downloads.
struct MediaServer {
    let folder: URL
    let port: Int

    /// Serves `folder` while `body` runs.
    static func serving<T>(_ folder: URL, _ body: (MediaServer) async throws -> T) async throws -> T {
        ServerSlots.requireSlot("a media server")
        let router = Router()
        router.add(middleware: FileMiddleware(folder.path, searchForIndexHtml: false, logger: Self.quiet))
        // `/redirect?to=URL` answers 302 to URL, for redirect checks.
        router.get("redirect") { request, _ -> Response in
            Response(status: .found, headers: [.location: request.uri.queryParameters.get("to") ?? "/"])
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: Self.quiet
        )
        return try await whileServing({ try await application.run() }) {
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            return try await body(MediaServer(folder: folder, port: port))
        }
    }

    /// A payload with the examples' `http://127.0.0.1:8000/` media URLs pointed at this server.
    func pointing(_ payload: Data) -> Data {
        Data(
            String(decoding: payload, as: UTF8.self)
                .replacingOccurrences(of: "http://127.0.0.1:8000/", with: "http://127.0.0.1:\(port)/").utf8)
    }
}

extension MediaServer {
    /// Test servers log nothing: their start and their cancellation at the end of a test are not news.
    static let quiet: Logger = {
        var logger = Logger(label: "mediaserver")
        logger.logLevel = .critical
        return logger
    }()
}
