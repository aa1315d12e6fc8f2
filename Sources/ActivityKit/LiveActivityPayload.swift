import Foundation
import HeraldJSON

/// The `aps` of a Live Activity push or broadcast, as the system reads it.
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
    /// The `alert` a start or an update shows (title, body, sound).
    let alert: (title: String, body: String, sound: String?)?

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
        alert = Self.alert(aps)
    }

    /// `aps.alert` as a string (the body) or a dictionary (`title`, `body`, or their `-loc-key`s), with `aps.sound`.
    private static func alert(_ aps: JSONValue) -> (title: String, body: String, sound: String?)? {
        let sound = aps["sound"]?.string ?? aps["sound"]?["name"]?.string
        if let body = aps["alert"]?.string { return ("", body, sound) }
        guard let alert = aps["alert"], alert.object != nil else { return nil }
        let title = alert["title"]?.string ?? alert["title-loc-key"]?.string ?? ""
        let body = alert["body"]?.string ?? alert["loc-key"]?.string ?? ""
        return title.isEmpty && body.isEmpty ? nil : (title, body, sound)
    }
}
