public import Foundation

/// One thing a device tells its provider about a push: it arrived, was shown, was opened, dismissed or answered,
/// or what became of it. Sent as `POST /v1/feedback`.
public struct Receipt: Sendable, Codable, Hashable {
    /// What happened.
    public enum Event: String, Sendable, Codable, CaseIterable {
        /// The device received it (the service extension ran).
        case delivered
        /// It was shown (in the foreground, or the service extension handed its content to the system).
        case displayed
        /// The person tapped it.
        case opened
        /// The person dismissed it (a category with `customDismissAction`).
        case dismissed
        /// The person chose an action (`action`), maybe with a text reply (`text`).
        case action
        /// What the device made of it, when it was not simply shown (`outcome`: `extensionTimeout`, ...).
        case outcome
    }

    public var event: Event
    /// The push's `apns-id`, as the provider sent it (the payload's `herald-id`).
    public var apnsID: String
    /// The device token the push reached, as hex.
    public var token: String
    /// For ``Event/action``: the action's identifier.
    public var action: String?
    /// A text-input action's reply.
    public var text: String?
    /// For ``Event/outcome``: the provider's outcome code (`extensionTimeout`, `extensionFailed`, ...).
    public var outcome: String?
    /// For ``Event/outcome``: the device's words for it.
    public var detail: String?
    /// When it happened on the device (the provider keeps this time, and a receipt sent twice is recorded once).
    public var time: Date

    public init(
        _ event: Event, apnsID: String, token: String, action: String? = nil, text: String? = nil,
        outcome: String? = nil, detail: String? = nil, time: Date = Date()
    ) {
        self.event = event
        self.apnsID = apnsID
        self.token = token
        self.action = action
        self.text = text
        self.outcome = outcome
        self.detail = detail
        // Milliseconds, as the provider stores it: the time is what tells a resent receipt from a new one.
        self.time = Date(timeIntervalSince1970: (time.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// The body of `POST /v1/feedback`.
    var feedbackJSON: Data {
        var fields: [String: String] = [
            "event": event.rawValue, "apnsID": apnsID, "token": token, "time": Self.timeText(time),
        ]
        fields["action"] = action
        fields["text"] = text
        fields["outcome"] = outcome
        fields["detail"] = detail
        return (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
    }

    /// ISO 8601 with milliseconds (`2026-11-21T07:00:01.250Z`); a microsecond added so a time a hair under its
    /// millisecond (binary fractions) is not written as the one before.
    static func timeText(_ date: Date) -> String {
        date.addingTimeInterval(0.000_001).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
