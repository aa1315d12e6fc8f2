import Synchronization

/// The cancelled notifications whose deliveries a batch withheld (leased, not written to APNs): cancelled in the queue
/// once the batch's results are recorded. Shared by the batch's tasks, one per app.
final class WithheldNotifications: Sendable {
    private let ids = Mutex<Set<String>>([])

    func insert(_ notificationID: String) {
        ids.withLock { _ = $0.insert(notificationID) }
    }

    /// Every notification withheld so far.
    var all: Set<String> { ids.withLock { $0 } }
}
