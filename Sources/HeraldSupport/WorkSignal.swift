import Foundation
import Synchronization

/// Wakes whoever waits for an event: the provider's idle workers when there is new work (so a notification is leased
/// at once instead of at the next poll), whoever follows the provider's or the gateway's changes (the console's live
/// views, a test waiting for something to happen).
package final class WorkSignal: Sendable {
    private struct State {
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
        /// How many times ``notify()`` was called.
        var count = 0
    }

    private let state = Mutex(State())
    private let sleep: @Sendable (Duration) async throws -> Void

    /// A signal whose waits time out by `sleep` (a clock's; real time unless given).
    package init(sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.sleep = sleep
    }

    /// How many times ``notify()`` was called: a waiter that reads it before looking at what changes misses no event
    /// (``wait(after:upTo:)``).
    package var count: Int { state.withLock { $0.count } }

    /// Wakes every waiter now.
    package func notify() {
        let waiting = state.withLock { state in
            state.count += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns at the next ``notify()`` (at once if there was one since `count` was `seen`), after `timeout`, or when
    /// the task is cancelled, whichever comes first.
    package func wait(after seen: Int? = nil, upTo timeout: Duration) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Checked under the lock: a cancellation either finds the waiter here or is seen before it is added.
                let waiting = state.withLock { state in
                    guard !Task.isCancelled, seen.map({ $0 == state.count }) ?? true else { return false }
                    state.waiters[id] = continuation
                    return true
                }
                guard waiting else { return continuation.resume() }
                Task { [sleep] in
                    try? await sleep(timeout)
                    self.resume(id)
                }
            }
        } onCancel: {
            resume(id)
        }
    }

    private func resume(_ id: UUID) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
