package import APNSCore
package import Foundation

/// The body of `POST /v1/notifications`.
package struct NotificationInput: StrictInput, Sendable {
    /// Who receives it: exactly one of `token`, `tokens`, `user`, `tags` (an expression) or `all`; for a Live
    /// Activity, `activity` (an activity's ID), `activities` (`{"type", "user"}`) or `channel` (a broadcast); for
    /// WidgetKit, `widgets` (`{"control", "user"}`, both optional).
    package var target: Target
    /// A raw APNs payload (`{"aps": {...}, ...}`), sent as given; or use ``content``.
    package var payload: JSONValue?
    /// The payload as fields.
    package var content: Content?
    /// A JSON object sealed to each device's public key and put under ``encryptedKey``; only devices with a key
    /// are targeted.
    package var encrypted: JSONValue?
    /// The custom key the sealed envelope goes under; `e2e` by default.
    package var encryptedKey: String?
    package var pushType: String?
    package var priority: Int?
    /// `apns-expiration`: UNIX seconds, or `0` for "now or never".
    package var expiration: Int?
    /// `apns-collapse-id`: a later notification with the same ID replaces this one on the device.
    package var collapseID: String?
    /// When to send (ISO 8601); now when omitted.
    package var sendAt: Date?
    /// `HH:MM`: send every day at this local time in each device's time zone (UTC for devices without one).
    package var dailyAt: String?
    /// Its own quiet window (`{"start", "end", "action"}`) instead of the app's, or `false` to send in the app's.
    package var quietHours: JSONValue?
    /// The category its app's frequency caps count it in (``FrequencyCap``): `marketing`, `digest`; none for a
    /// notification no cap holds back (a receipt, a reset code).
    package var capCategory: String?
    /// With a raw ``payload``: its alert in other languages, as ``Content/languages`` is with content (a language tag
    /// to `{"title", "subtitle", "body"}`); the payload is then composed text, whose variables are filled in.
    package var languages: JSONValue?

    package struct Target: StrictInput, Sendable {
        package var token: String?
        package var tokens: [String]?
        package var user: String?
        package var tags: String?
        package var all: Bool?
        /// The update tokens registered for one activity.
        package var activity: String?
        /// The activities of an attributes type (of one user when `user` is given): their update tokens, or the
        /// push-to-start tokens of the type for an `event: start`.
        package var activities: Activities?
        /// A channel the provider made (`POST /v1/channels`): one broadcast to every activity subscribed to it.
        package var channel: String?
        /// The registered WidgetKit tokens (`/v1/widgets/tokens`): `{}` reloads every widget, `{"control": KIND}`
        /// one control; `"user"` narrows either to one user's devices.
        package var widgets: Widgets?

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case token, tokens, user, tags, all, activity, activities, channel, widgets
        }

        package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
        package static var nested: [String: any StrictInput.Type] {
            ["activities": Activities.self, "widgets": Widgets.self]
        }

        package struct Widgets: StrictInput, Sendable {
            package var control: String?
            package var user: String?

            package enum CodingKeys: String, CodingKey, CaseIterable {
                case control, user
            }

            package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
        }

        package struct Activities: StrictInput, Sendable {
            package var type: String
            package var user: String?

            package enum CodingKeys: String, CodingKey, CaseIterable {
                case type, user
            }

            package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
        }
    }

    package struct Content: StrictInput, Sendable {
        package var title: String?
        package var subtitle: String?
        package var body: String?
        package var badge: Int?
        package var sound: String?
        package var category: String?
        package var threadID: String?
        /// Custom keys at the payload's top level.
        package var data: JSONValue?
        /// A media URL under the custom key `media-url`, with `mutable-content` set so a service extension can
        /// download it.
        package var mediaURL: String?
        package var mutableContent: Bool?
        package var contentAvailable: Bool?
        /// The alert in other languages: a JSON object from a language tag (`zh-Hans`, `pt-BR`) to `{"title",
        /// "subtitle", "body"}`; each device gets the one its locale reads best, the alert above when none.
        package var languages: JSONValue?

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case title, subtitle, body, badge, sound, category, threadID, data, mediaURL, mutableContent,
                contentAvailable, languages
        }

        package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case target, payload, content, encrypted, encryptedKey, pushType, priority, expiration, collapseID, sendAt,
            dailyAt, quietHours, capCategory, languages
    }

    package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    package static var nested: [String: any StrictInput.Type] { ["target": Target.self, "content": Content.self] }
}
