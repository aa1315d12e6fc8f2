import APNSCore
import ArgumentParser
import Foundation

/// `herald send`'s quick flags: a payload without a file, or changes on top of one.
struct QuickPayloadOptions: ParsableArguments {
    @Option(help: "aps.alert.title.")
    var title: String?

    @Option(help: "aps.alert.subtitle.")
    var subtitle: String?

    @Option(help: "aps.alert.body.")
    var body: String?

    @Option(help: "aps.badge (a number; 0 clears the badge).")
    var badge: Int?

    @Option(help: "aps.sound (a file name in the app, or 'default').")
    var sound: String?

    @Option(help: "aps.category: the category whose actions the notification shows.")
    var category: String?

    @Option(name: .customLong("thread-id"), help: "aps.thread-id: groups notifications.")
    var threadID: String?

    @Flag(name: .customLong("mutable-content"), help: "aps.mutable-content = 1: the service extension runs.")
    var mutableContent = false

    @Flag(name: .customLong("content-available"), help: "aps.content-available = 1: a background push.")
    var contentAvailable = false

    @Option(
        name: .customLong("custom"), help: "A custom key=value beside aps (value as JSON if it parses). Repeatable.")
    var custom: [String] = []

    /// Whether any quick flag was given.
    var isEmpty: Bool {
        title == nil && subtitle == nil && body == nil && badge == nil && sound == nil && category == nil
            && threadID == nil && !mutableContent && !contentAvailable && custom.isEmpty
    }

    /// `payload` with the flags applied on top.
    func apply(to payload: APNSPayload) throws(UsageError) -> APNSPayload {
        var payload = payload
        var aps = payload.aps
        if title != nil || subtitle != nil || body != nil {
            var alert = aps["alert"]?.object ?? JSONObject()
            if case .string(let text)? = aps["alert"] { alert["body"] = .string(text) }
            if let title { alert["title"] = .string(title) }
            if let subtitle { alert["subtitle"] = .string(subtitle) }
            if let body { alert["body"] = .string(body) }
            aps["alert"] = .object(alert)
        }
        if let badge { aps["badge"] = .number(JSONNumber(badge)) }
        if let sound { aps["sound"] = .string(sound) }
        if let category { aps["category"] = .string(category) }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if mutableContent { aps["mutable-content"] = 1 }
        if contentAvailable { aps["content-available"] = 1 }
        payload.aps = aps
        for pair in custom {
            guard let separator = pair.firstIndex(of: "="), separator != pair.startIndex else {
                throw UsageError("--custom is key=value; got '\(pair)'")
            }
            let key = String(pair[..<separator])
            let text = String(pair[pair.index(after: separator)...])
            guard key != "aps" else { throw UsageError("--custom cannot set aps; use the aps flags or --payload") }
            payload[key] = (try? JSONValue(parsing: Data(text.utf8))) ?? .string(text)
        }
        return payload
    }
}
