import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A provider stand-in on a free port that records what devices POST to `/register` and `/reports`.
struct ReportReceiver {
    let port: Int
    let bodies: Bodies

    /// Every body received, by path.
    final class Bodies: Sendable {
        private let received = Mutex<[(path: String, body: Data)]>([])

        func add(_ path: String, _ body: Data) {
            received.withLock { $0.append((path, body)) }
        }

        /// The JSON objects POSTed to `path`, in order.
        func all(_ path: String) -> [[String: Any]] {
            received.withLock { $0.filter { $0.path == path }.map(\.body) }
                .map { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] ?? [:] }
        }
    }

    static func running<T>(_ body: (ReportReceiver) async throws -> T) async throws -> T {
        let bodies = Bodies()
        let router = Router()
        for path in ["register", "reports"] {
            router.post(.init(stringLiteral: path)) { request, _ -> HTTPResponse.Status in
                let buffer = try await request.body.collect(upTo: 1 << 20)
                bodies.add(path, Data(buffer.readableBytesView))
                return .noContent
            }
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
        let running = Task { try await application.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return try await body(ReportReceiver(port: port, bodies: bodies))
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }
}
