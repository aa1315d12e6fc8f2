import Foundation
import Synchronization

/// The device's recent events (the last ``capacity``), for `GET /events`: how the console shows a notification's
/// life on the device.
final class DeviceEventJournal: Sendable {
    static let capacity = 5000
    private let events = Mutex<[DeviceEvent]>([])

    /// Keeps every event of `stream` until it ends.
    func record(_ stream: AsyncStream<DeviceEvent>) async {
        for await event in stream {
            events.withLock { events in
                events.append(event)
                if events.count > Self.capacity { events.removeFirst(events.count - Self.capacity) }
            }
        }
    }

    /// The events about `apnsID` (any case), oldest first; all when it is `nil`.
    func events(apnsID: String?) -> [DeviceEvent] {
        let all = events.withLock { $0 }
        guard let apnsID = apnsID?.lowercased() else { return all }
        return all.filter { $0.apnsID?.lowercased() == apnsID }
    }
}
