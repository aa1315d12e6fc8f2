import APNSCore
public import Foundation

/// Something that happened on a simulated device: what the terminal shows, tests wait for, and `--report-url`
/// receives (deliveries, displays and responses).
public struct DeviceEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable {
        /// An app got its device token from the gateway.
        case registered
        /// A notification reached the app (after its service extension).
        case delivered
        /// A delivered notification was shown (banner, alert or Notification Center).
        case displayed
        /// The person opened, dismissed or acted on a notification.
        case response
        /// Something worth knowing that is not an event of the app: a failed download, a refused message.
        case log
        /// One of the app's Live Activities started, changed or ended: `notificationID` is the activity's id,
        /// `message` says what changed and shows its content state.
        case activity
        /// What became of a push beyond delivered and displayed: `outcome` is the code (`notAuthorized`,
        /// `extensionTimeout`, ... as the provider's `POST /v1/feedback` takes it), `message` the details.
        case outcome
    }

    public let kind: Kind
    public let time: Date
    public let bundleID: String?
    public let token: String?
    /// The notification's `apns-id` (remote notifications only).
    public let apnsID: String?
    /// The notification's identifier in the device API.
    public let notificationID: String?
    /// For a response: `default`, `dismiss` or the action's identifier.
    public let action: String?
    /// For a text-input response: what was typed.
    public let text: String?
    /// For a log: what happened.
    public let message: String?
    /// For an outcome: its code.
    public let outcome: String?

    init(
        _ kind: Kind, bundleID: String? = nil, token: String? = nil, apnsID: String? = nil,
        notificationID: String? = nil, action: String? = nil, text: String? = nil, message: String? = nil,
        outcome: String? = nil, time: Date = Date()
    ) {
        self.kind = kind
        self.time = time
        self.bundleID = bundleID
        self.token = token
        self.apnsID = apnsID
        self.notificationID = notificationID
        self.action = action
        self.text = text
        self.message = message
        self.outcome = outcome
    }

    /// The event as `--report-url` receives it: `event`, `apnsID`, `bundleID`, `token`, `action`, `text`, `time`
    /// (ISO 8601 with milliseconds) and `notificationID`; an outcome also `outcome` and `detail`.
    package var reportJSON: Data {
        let fields: [(key: String, value: String?)] = [
            ("action", action), ("apnsID", apnsID), ("bundleID", bundleID),
            ("detail", kind == .outcome ? message : nil), ("event", kind.rawValue), ("message", message),
            ("notificationID", notificationID), ("outcome", outcome), ("text", text),
            ("time", time.iso8601Milliseconds), ("token", token),
        ]
        return JSONValue.object(JSONObject(fields.compactMap { field in field.value.map { (field.key, .string($0)) } }))
            .encoded()
    }

}
