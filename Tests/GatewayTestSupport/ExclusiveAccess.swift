import Synchronization

/// Runs bodies one at a time across test suites, for a resource the process has once: ActivityKit's
/// `ActivitySystem.shared`, behind the static `Activity.request`, which suites in different targets would otherwise
/// reset under each other.
package final class ExclusiveAccess: Sendable {
    /// The app's one ActivityKit system.
    package static let activitySystem = ExclusiveAccess()

    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` when no other body of this resource runs.
    package func run<T>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    private func acquire() async {
        await withCheckedContinuation { continuation in
            let free = state.withLock { state in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if free { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
