import Foundation
import HeraldJSON

/// The `aps` of a Live Activity push or broadcast (reference D, K.4), as the system reads it.
struct LiveActivityPayload {
    enum Event: String {
        case start, update, end
    }

    let event: Event
    let timestamp: Int?
    let contentState: Data?
    let staleDate: Date?
    let dismissalDate: Date?
    let relevanceScore: Double?
    let attributesType: String?
    let attributes: Data?
    let inputPushChannel: String?
    let inputPushToken: Bool

    /// Reads a payload; `nil` when it is not a Live Activity payload (no `aps.event` of start, update or end).
    init?(_ payload: Data) {
        guard let aps = (try? JSONValue(parsing: payload))?["aps"], let eventText = aps["event"]?.string,
            let event = Event(rawValue: eventText)
        else { return nil }
        func date(_ key: String) -> Date? {
            aps[key]?.number.map { Date(timeIntervalSince1970: $0.doubleValue) }
        }
        func json(_ key: String) -> Data? {
            guard let object = aps[key]?.object else { return nil }
            return JSONValue.object(object).encoded()
        }
        self.event = event
        timestamp = aps["timestamp"]?.number?.intValue
        contentState = json("content-state")
        staleDate = date("stale-date")
        dismissalDate = date("dismissal-date")
        relevanceScore = aps["relevance-score"]?.number?.doubleValue
        attributesType = aps["attributes-type"]?.string
        attributes = json("attributes")
        inputPushChannel = aps["input-push-channel"]?.string
        inputPushToken = aps["input-push-token"]?.number?.intValue == 1
    }
}
