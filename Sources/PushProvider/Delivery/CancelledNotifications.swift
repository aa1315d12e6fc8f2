import Foundation
import ProviderStorage
import Synchronization

/// Notifications cancelled while the engine may hold leases of them, and when: what the engine has not sent of them
/// yet is not sent. Each is kept for ``keep`` (twice a lease's length), after which no lease of it can be left.
final class CancelledNotifications: Sendable {
    private let stopped = Mutex<[String: Date]>([:])
    /// How many ``stopped`` holds: read without the lock before every chunk, so the send path pays a load when
    /// nothing was cancelled.
    private let count = Atomic<Int>(0)
    private let keep: TimeInterval

    init(keep: TimeInterval) {
        self.keep = keep
    }

    /// Notification `notificationID` was cancelled at `now`; those kept longer than ``keep`` are forgotten.
    func add(_ notificationID: String, now: Date) {
        stopped.withLock { stopped in
            stopped = stopped.filter { now.timeIntervalSince($0.value) < keep }
            stopped[notificationID] = now
            count.store(stopped.count, ordering: .relaxed)
        }
    }

    /// Whether no notification is kept: the send path's only cost when nothing was cancelled.
    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    /// How many of `deliveries` from `start` on not to send, because their notification was cancelled (the run of
    /// them at `start`), or, when the one at `start` goes out, how many may go before the first that must not
    /// (`limit` at most).
    func run(in deliveries: [LeasedDelivery], from start: Int, limit: Int) -> (withheld: Int, send: Int) {
        let stopped = self.stopped.withLock { Set($0.keys) }
        let end = min(deliveries.count, start + limit)
        var position = start
        while position < deliveries.count, stopped.contains(deliveries[position].notificationID) { position += 1 }
        if position > start { return (position - start, 0) }
        while position < end, !stopped.contains(deliveries[position].notificationID) { position += 1 }
        return (0, position - start)
    }
}
