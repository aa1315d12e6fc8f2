import Foundation
import HeraldSupport
import Logging
import Synchronization

/// Hands every device event to each subscriber (the terminal, the reporter, tests), in order, and counts the
/// changes of what the device shows.
final class EventHub: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<DeviceEvent>.Continuation]>([:])
    private let logger: Logger
    /// Notified at every event and whenever an app's notification center changes what it shows (pending and
    /// delivered notifications, badges): what the device API's `GET /changes` waits on.
    let changes = WorkSignal()

    /// - Parameter logger: where every event is also written, at debug level.
    init(logger: Logger) {
        self.logger = logger
    }

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
        if logger.logLevel <= .debug {
            var metadata: Logger.Metadata = [:]
            if let bundleID = event.bundleID { metadata["app"] = "\(bundleID)" }
            if let apnsID = event.apnsID { metadata["apns-id"] = "\(apnsID)" }
            if let token = event.token { metadata["token"] = "\(token.prefix(8))…" }
            if let action = event.action { metadata["action"] = "\(action)" }
            if let message = event.message { metadata["message"] = "\(message)" }
            logger.debug("\(event.kind.rawValue)", metadata: metadata)
        }
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
        changes.notify()
    }

    func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
