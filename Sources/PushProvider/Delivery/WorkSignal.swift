import Foundation
import Synchronization

/// Wakes idle workers when there is new work, so a notification is leased at once instead of at the next poll.
final class WorkSignal: Sendable {
    private let waiters = Mutex<[UUID: CheckedContinuation<Void, Never>]>([:])

    /// Wakes every worker waiting now.
    func notify() {
        let waiting = waiters.withLock { waiters in
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns at the next ``notify()``, after `timeout`, or when the task is cancelled, whichever comes first.
    func wait(upTo timeout: Duration) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Checked under the lock: a cancellation either finds the waiter here or is seen before it is added.
                let waiting = waiters.withLock { waiters in
                    guard !Task.isCancelled else { return false }
                    waiters[id] = continuation
                    return true
                }
                guard waiting else { return continuation.resume() }
                Task {
                    try? await Task.sleep(for: timeout)
                    self.resume(id)
                }
            }
        } onCancel: {
            resume(id)
        }
    }

    private func resume(_ id: UUID) {
        waiters.withLock { $0.removeValue(forKey: id) }?.resume()
    }
}
