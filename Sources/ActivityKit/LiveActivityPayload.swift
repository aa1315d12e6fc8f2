import Foundation

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
        guard let root = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
            let aps = root["aps"] as? [String: Any], let eventText = aps["event"] as? String,
            let event = Event(rawValue: eventText)
        else { return nil }
        func date(_ key: String) -> Date? {
            (aps[key] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
        }
        func json(_ key: String) -> Data? {
            guard let object = aps[key] as? [String: Any] else { return nil }
            return try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        self.event = event
        timestamp = (aps["timestamp"] as? NSNumber)?.intValue
        contentState = json("content-state")
        staleDate = date("stale-date")
        dismissalDate = date("dismissal-date")
        relevanceScore = (aps["relevance-score"] as? NSNumber)?.doubleValue
        attributesType = aps["attributes-type"] as? String
        attributes = json("attributes")
        inputPushChannel = aps["input-push-channel"] as? String
        inputPushToken = (aps["input-push-token"] as? NSNumber)?.intValue == 1
    }
}
