import Synchronization

/// Set when the task that sends gives up: the send's notifications that APNs has not answered end at once with
/// ``APNSReason/cancelled`` instead of waiting for a connection, an answer or their deadline.
final class SendCancellation: Sendable {
    private let cancelled = Atomic(false)

    /// Whether the send was cancelled.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Marks the send cancelled (once; later calls do nothing).
    func cancel() { cancelled.store(true, ordering: .releasing) }
}
