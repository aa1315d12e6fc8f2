import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// An app's own server on a free port: records every webhook POST.
struct WebhookReceiver {
    let port: Int
    let bodies: Bodies

    final class Bodies: Sendable {
        private let received = Mutex<[Data]>([])

        func add(_ body: Data) { received.withLock { $0.append(body) } }

        var all: [JSON] {
            received.withLock { $0 }.map { JSON(try? JSONSerialization.jsonObject(with: $0)) }
        }
    }

    static func running<T>(_ body: (WebhookReceiver) async throws -> T) async throws -> T {
        let bodies = Bodies()
        let router = Router()
        router.post("hook") { request, _ -> HTTPResponse.Status in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            bodies.add(Data(buffer.readableBytesView))
            return .noContent
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
        let running = Task { try await application.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return try await body(WebhookReceiver(port: port, bodies: bodies))
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }
}

/// Waits until `condition` holds, checking every 50 ms; fails the test after `seconds`.
func eventually(
    _ what: String, seconds: Double = 20, _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw WaitTimeout(what: what)
}

struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}
