import APNSCore
import Foundation

/// The body of `POST /v1/notifications`.
struct NotificationInput: StrictInput, Sendable {
    /// Who receives it: exactly one of `token`, `tokens`, `user`, `tags` (an expression) or `all`; for a Live
    /// Activity, `activity` (an activity's ID), `activities` (`{"type", "user"}`) or `channel` (a broadcast); for
    /// WidgetKit, `widgets` (`{"control", "user"}`, both optional).
    var target: Target
    /// A raw APNs payload (`{"aps": {...}, ...}`), sent as given; or use ``content``.
    var payload: JSONValue?
    /// The payload as fields.
    var content: Content?
    /// A JSON object sealed to each device's public key and put under ``encryptedKey``; only devices with a key
    /// are targeted.
    var encrypted: JSONValue?
    /// The custom key the sealed envelope goes under; `e2e` by default.
    var encryptedKey: String?
    var pushType: String?
    var priority: Int?
    /// `apns-expiration`: UNIX seconds, or `0` for "now or never".
    var expiration: Int?
    /// `apns-collapse-id`: a later notification with the same ID replaces this one on the device.
    var collapseID: String?
    /// When to send (ISO 8601); now when omitted.
    var sendAt: Date?
    /// `HH:MM`: send every day at this local time in each device's time zone (UTC for devices without one).
    var dailyAt: String?

    struct Target: StrictInput, Sendable {
        var token: String?
        var tokens: [String]?
        var user: String?
        var tags: String?
        var all: Bool?
        /// The update tokens registered for one activity.
        var activity: String?
        /// The activities of an attributes type (of one user when `user` is given): their update tokens, or the
        /// push-to-start tokens of the type for an `event: start`.
        var activities: Activities?
        /// A channel the provider made (`POST /v1/channels`): one broadcast to every activity subscribed to it.
        var channel: String?
        /// The registered WidgetKit tokens (`/v1/widgets/tokens`): `{}` reloads every widget, `{"control": KIND}`
        /// one control; `"user"` narrows either to one user's devices.
        var widgets: Widgets?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case token, tokens, user, tags, all, activity, activities, channel, widgets
        }

        static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
        static var nested: [String: any StrictInput.Type] { ["activities": Activities.self, "widgets": Widgets.self] }

        struct Widgets: StrictInput, Sendable {
            var control: String?
            var user: String?

            enum CodingKeys: String, CodingKey, CaseIterable {
                case control, user
            }

            static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
        }

        struct Activities: StrictInput, Sendable {
            var type: String
            var user: String?

            enum CodingKeys: String, CodingKey, CaseIterable {
                case type, user
            }

            static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
        }
    }

    struct Content: StrictInput, Sendable {
        var title: String?
        var subtitle: String?
        var body: String?
        var badge: Int?
        var sound: String?
        var category: String?
        var threadID: String?
        /// Custom keys at the payload's top level.
        var data: JSONValue?
        /// A media URL under the custom key `media-url`, with `mutable-content` set so a service extension can
        /// download it.
        var mediaURL: String?
        var mutableContent: Bool?
        var contentAvailable: Bool?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case title, subtitle, body, badge, sound, category, threadID, data, mediaURL, mutableContent,
                contentAvailable
        }

        static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case target, payload, content, encrypted, encryptedKey, pushType, priority, expiration, collapseID, sendAt,
            dailyAt
    }

    static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    static var nested: [String: any StrictInput.Type] { ["target": Target.self, "content": Content.self] }
}
