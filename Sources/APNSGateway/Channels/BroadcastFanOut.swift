import Dispatch

/// Runs broadcast deliveries one after another on a queue of their own, so a broadcast's answer never waits for its
/// subscribers and two broadcasts on a channel reach each device in the order they were accepted.
final class BroadcastFanOut: Sendable {
    private let queue = DispatchQueue(label: "herald.broadcast-fan-out")

    /// Queues a delivery.
    func run(_ delivery: @escaping @Sendable () -> Void) {
        queue.async(execute: delivery)
    }
}
