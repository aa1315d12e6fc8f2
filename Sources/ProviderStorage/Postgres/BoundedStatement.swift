import Foundation
import PostgresNIO
import Synchronization

/// One use of a pooled connection with limits, each of which answers the caller at once with an error:
/// - no connection within the wait (the database is down, or every connection is busy);
/// - the connection closed under the statement for ``closedGrace`` while it still waits (PostgresNIO 1.33 can leave a
///   statement sent as the server shuts down waiting for good on a connection it knows is closed: seen in a
///   mid-broadcast restart, where one `UPDATE` hung until the process ended, and its batch with it);
/// - the whole use past its limit; then the connection is also closed, which fails whatever still waits on it and
///   takes it out of the pool.
///
/// A task group cannot do this: it waits for every child before it returns.
package final class BoundedStatement<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var connection: PostgresConnection?
        var work: Task<Void, Never>?
        var watch: Task<Void, Never>?
        var workEnded = false
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Runs `body` on a connection from `client`: ``ProviderError/storage(_:)`` when none comes within
    /// `connectionWait`, or when `body` has not returned within `limit` of the start. `connected` is told how long
    /// the connection took to come.
    static func run(
        on client: PostgresClient, connectionWait: Duration, limit: Duration,
        connected: @escaping @Sendable (Duration) -> Void = { _ in },
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let statement = BoundedStatement()
        let start = ContinuousClock.now
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                statement.start(continuation, on: client, connectionWait: connectionWait, limit: limit) { connection in
                    connected(.now - start)
                    return try await body(connection)
                }
            }
        } onCancel: {
            statement.cancel()
        }
    }

    private func start(
        _ continuation: CheckedContinuation<T, any Error>, on client: PostgresClient, connectionWait: Duration,
        limit: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.continuation = continuation }
            return state.cancelled
        }
        guard !cancelled else { return continuation.resume(throwing: CancellationError()) }
        let work = Task {
            do {
                let value = try await client.withConnection { connection in
                    self.state.withLock { $0.connection = connection }
                    return try await body(connection)
                }
                self.workEnded(.success(value))
            } catch {
                self.workEnded(.failure(error))
            }
        }
        let watch = Task { await self.watch(work, connectionWait: connectionWait, limit: limit) }
        let ended = state.withLock { state in
            state.work = work
            state.watch = watch
            return state.workEnded
        }
        if ended { watch.cancel() }
    }

    /// Fails the statement when it has no connection within `connectionWait`, when its connection has been closed
    /// for ``closedGrace`` while it still waits (PostgresNIO 1.33 can leave a statement waiting on a connection the
    /// server closed), or when `limit` has passed; in the last case it closes the connection too.
    private func watch(_ work: Task<Void, Never>, connectionWait: Duration, limit: Duration) async {
        let clock = ContinuousClock()
        let start = clock.now
        var closedSince: ContinuousClock.Instant?
        while (try? await Task.sleep(for: Self.checkEvery)) != nil {
            let elapsed = clock.now - start
            guard let connection = state.withLock({ $0.workEnded ? nil : $0.connection }) else {
                if state.withLock({ $0.workEnded }) { return }
                if elapsed >= connectionWait {
                    answer(
                        ProviderError.storage(
                            "PostgreSQL gave no connection within \(connectionWait) (is it running, or are all "
                                + "connections busy?); try again"))
                    work.cancel()
                    return
                }
                continue
            }
            if connection.isClosed {
                closedSince = closedSince ?? clock.now
                if let closedSince, clock.now - closedSince >= Self.closedGrace {
                    answer(
                        ProviderError.storage(
                            "the connection to PostgreSQL closed while a statement waited for its answer (was the "
                                + "database restarted?); try again"))
                    return
                }
            }
            if elapsed >= limit {
                answer(
                    ProviderError.storage(
                        "PostgreSQL did not answer a statement within \(limit); its connection was closed (was the "
                            + "database restarted, or the network cut?); try again"))
                try? await connection.close()
                return
            }
        }
    }

    /// How often ``watch(_:connectionWait:limit:)`` looks at the statement.
    package static var checkEvery: Duration { .milliseconds(250) }

    /// How long a statement may still wait once its connection is closed (its error is normally on its way).
    package static var closedGrace: Duration { .seconds(1) }

    private func workEnded(_ result: Result<T, any Error>) {
        let (continuation, watch) = state.withLock { state in
            state.workEnded = true
            defer { state.continuation = nil }
            return (state.continuation, state.watch)
        }
        watch?.cancel()
        continuation?.resume(with: result)
    }

    /// Answers the caller with `error` unless it has its answer already.
    private func answer(_ error: any Error) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(throwing: error)
    }

    /// The caller was cancelled: it is answered at once and the work is cancelled. A statement that ignores
    /// cancellation still has its connection closed at the limit.
    private func cancel() {
        let work = state.withLock { state in
            state.cancelled = true
            return state.work
        }
        work?.cancel()
        answer(CancellationError())
    }
}
