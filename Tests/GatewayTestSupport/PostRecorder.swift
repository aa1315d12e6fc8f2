package import Foundation
import HeraldSupport
import Hummingbird
import Logging
import NIOCore
import Synchronization
import TestPacing

/// An HTTP server on a free port that records the body of every POST, by path: a provider's registration and report
/// endpoints for devices, or an app's own server for a provider's webhooks.
package struct PostRecorder: Sendable {
    package let port: Int
    private let received: Received

    private final class Received: Sendable {
        let bodies = Mutex<[(path: String, body: Data)]>([])
        /// Every POST's headers (names lowercased) and body, by path, in order.
        let requests = Mutex<[(path: String, headers: [String: String], body: Data)]>([])
        /// The status every POST is answered with (204 unless a test changes it).
        let status = Mutex(204)
        /// Told of every POST, for ``PostRecorder/until(_:within:_:)``.
        let arrivals = WorkSignal()
        /// Whether POSTs to the holding paths may be answered now; told when they may.
        let released = Mutex(false)
        let release = WorkSignal()
        /// Waits for a path's first body, resumed when one arrives.
        let waiters = Mutex<[(path: String, continuation: CheckedContinuation<Void, Never>)]>([])

        func add(_ path: String, _ body: Data) {
            bodies.withLock { $0.append((path, body)) }
            let ready = waiters.withLock { waiters in
                let ready = waiters.filter { $0.path == path }
                waiters.removeAll { $0.path == path }
                return ready
            }
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    /// Runs `body` with a recorder that answers `204` to a POST on any of `paths`; a POST to one of `holding` is
    /// recorded as it arrives and answered only after ``release()`` (a receiver that hangs).
    package static func running<T>(
        paths: [String], holding: [String] = [], _ body: (PostRecorder) async throws -> T
    ) async throws -> T {
        ServerSlots.requireSlot("a receiver of POSTs")
        let received = Received()
        let router = Router()
        for path in paths + holding {
            router.post(.init(stringLiteral: path)) { request, _ -> HTTPResponse.Status in
                let buffer = try await request.body.collect(upTo: 1 << 20)
                let body = Data(buffer.readableBytesView)
                let headers = Dictionary(
                    request.headers.map { ($0.name.canonicalName, $0.value) }, uniquingKeysWith: { first, _ in first })
                received.requests.withLock { $0.append((path, headers, body)) }
                defer { received.arrivals.notify() }
                if holding.contains(path) {
                    received.arrivals.notify()
                    while true {
                        let seen = received.release.count
                        if received.released.withLock({ $0 }) || Task.isCancelled { break }
                        await received.release.wait(after: seen, upTo: .seconds(600))
                    }
                }
                let status = received.status.withLock { $0 }
                guard (200..<300).contains(status) else { return HTTPResponse.Status(code: status) }
                received.add(path, body)
                return HTTPResponse.Status(code: status)
            }
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: Self.quiet)
        return try await whileServing({ try await application.run() }) {
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            return try await body(PostRecorder(port: port, received: received))
        }
    }

    /// Answers the POSTs held on the holding paths, and every later one at once.
    package func release() {
        received.released.withLock { $0 = true }
        received.release.notify()
    }

    /// Answers every POST from now on with `status` (a body is recorded as received only with a 2xx).
    package func answer(with status: Int) {
        received.status.withLock { $0 = status }
    }

    /// Every POST to `path` so far, answered 2xx or not: its headers (names lowercased) and body.
    package func requests(_ path: String) -> [(headers: [String: String], body: Data)] {
        received.requests.withLock { $0.filter { $0.path == path }.map { ($0.headers, $0.body) } }
    }

    /// Waits until `condition` holds, checking it again after each POST that arrives.
    ///
    /// - Throws: when it does not hold within `within` (a bound for a test that would otherwise hang).
    package func until(_ what: String, within: Duration = .seconds(120), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + within
        while true {
            let seen = received.arrivals.count
            if condition() { return }
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw PostRecorderTimeout(description: "\(what) did not happen within \(within)")
            }
            await received.arrivals.wait(after: seen, upTo: left)
        }
    }

    /// The URL of `path` on this recorder.
    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// The first JSON body POSTed to `path`, waiting for it when none came yet.
    ///
    /// - Throws: when none comes within `within`.
    package func first(_ path: String, within: Duration = .seconds(120)) async throws -> [String: Any] {
        let received = self.received
        let timeout = Task {
            try await Task.sleep(for: within)
            // Wakes the wait below, which then finds nothing.
            let expired = received.waiters.withLock { waiters in
                let expired = waiters.filter { $0.path == path }
                waiters.removeAll { $0.path == path }
                return expired
            }
            for waiter in expired { waiter.continuation.resume() }
        }
        defer { timeout.cancel() }
        await withCheckedContinuation { continuation in
            let arrived = received.waiters.withLock { waiters in
                guard !received.bodies.withLock({ $0.contains { $0.path == path } }) else { return true }
                waiters.append((path, continuation))
                return false
            }
            if arrived { continuation.resume() }
        }
        guard let body = bodies(path).first else {
            throw PostRecorderTimeout(description: "nothing was POSTed to /\(path) within \(within)")
        }
        return body
    }

    /// The JSON bodies POSTed to `path`, in order (an object that is not JSON is empty).
    package func bodies(_ path: String) -> [[String: Any]] {
        received.bodies.withLock { $0.filter { $0.path == path }.map(\.body) }
            .map { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] ?? [:] }
    }
}

extension PostRecorder {
    /// Test servers log nothing: their start and their cancellation at the end of a test are not news.
    static let quiet: Logger = {
        var logger = Logger(label: "postrecorder")
        logger.logLevel = .critical
        return logger
    }()
}

/// Nothing was POSTed in time.
package struct PostRecorderTimeout: Error, CustomStringConvertible {
    package let description: String
}
