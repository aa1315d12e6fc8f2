import Foundation
import Synchronization

/// Hands every device event to each subscriber (the terminal, the reporter, tests), in order.
final class EventHub: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<DeviceEvent>.Continuation]>([:])

    /// A stream of the events from now on; it ends when the device stops.
    func subscribe() -> AsyncStream<DeviceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceEvent.self)
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func emit(_ event: DeviceEvent) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
