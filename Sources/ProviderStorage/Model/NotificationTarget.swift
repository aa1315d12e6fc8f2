package import APNSCore
import Foundation

/// Who a notification goes to, checked.
package enum NotificationTarget: Sendable, Hashable {
    case tokens([String])
    case user(String)
    case tags(TagExpression)
    case all
    /// The update tokens of one activity.
    case activity(String)
    /// The activities of an attributes type, of one user when given: their update tokens, or the type's
    /// push-to-start tokens (``NotificationPlan`` decides by the payload's `event`).
    case activities(type: String, user: String?, pushToStart: Bool)
    /// A broadcast on a channel, by its `apns-channel-id`.
    case channel(String)
    /// The app's registered widgets tokens, or one control's tokens, of one user when given.
    case widgets(control: String?, user: String?)

    /// Checks that exactly one kind of target is given.
    ///
    /// - Throws: ``ProviderError`` naming `target` when none or several are given, or a token or expression is bad.
    package init(_ input: NotificationInput.Target) throws(ProviderError) {
        var found: [NotificationTarget] = []
        if let token = input.token { found.append(.tokens([try Self.checkToken(token, field: "target.token")])) }
        if let tokens = input.tokens {
            guard !tokens.isEmpty, tokens.count <= 10_000 else {
                throw .field("target.tokens", "give between 1 and 10,000 tokens; use tags or all for more")
            }
            var checked: [String] = []
            for (index, token) in tokens.enumerated() {
                checked.append(try Self.checkToken(token, field: "target.tokens[\(index)]"))
            }
            found.append(.tokens(checked))
        }
        if let user = input.user {
            try ProviderError.refuseNUL(user, field: "target.user")
            found.append(.user(user))
        }
        if let tags = input.tags { found.append(.tags(try TagExpression(parsing: tags))) }
        if input.all == true { found.append(.all) }
        if let activity = input.activity {
            guard (1...256).contains(activity.count) else {
                throw .field("target.activity", "an activity ID is 1 to 256 characters")
            }
            try ProviderError.refuseNUL(activity, field: "target.activity")
            found.append(.activity(activity))
        }
        if let activities = input.activities {
            guard (1...256).contains(activities.type.count) else {
                throw .field("target.activities.type", "give the attributes type, 1 to 256 characters")
            }
            if let user = activities.user, !(1...256).contains(user.count) {
                throw .field("target.activities.user", "a user ID is 1 to 256 characters")
            }
            try ProviderError.refuseNUL(activities.type, field: "target.activities.type")
            try ProviderError.refuseNUL(activities.user, field: "target.activities.user")
            found.append(.activities(type: activities.type, user: activities.user, pushToStart: false))
        }
        if let channel = input.channel {
            guard APNSChannelID(rawValue: channel) != nil else {
                throw .field(
                    "target.channel",
                    APNSChannelID.problem(with: channel) ?? "not a channel ID; see GET /v1/channels for the app's")
            }
            found.append(.channel(channel))
        }
        if let widgets = input.widgets {
            if let control = widgets.control, !(1...256).contains(control.count) {
                throw .field("target.widgets.control", "a control's kind is 1 to 256 characters")
            }
            if let user = widgets.user, !(1...256).contains(user.count) {
                throw .field("target.widgets.user", "a user ID is 1 to 256 characters")
            }
            try ProviderError.refuseNUL(widgets.control, field: "target.widgets.control")
            try ProviderError.refuseNUL(widgets.user, field: "target.widgets.user")
            found.append(.widgets(control: widgets.control, user: widgets.user))
        }
        guard found.count == 1, let target = found.first else {
            throw .field(
                "target",
                "give exactly one of token, tokens, user, tags, all: true, activity, activities, channel or widgets")
        }
        self = target
    }

    /// A device token is hex, an even number of digits, at most 200; the token in lower case.
    package static func checkToken(_ token: String, field: String) throws(ProviderError) -> String {
        // Bytes, not characters: only ASCII hex digits count, and a long token is read once, in place (an import
        // checks millions).
        guard token.utf8.withContiguousStorageIfAvailable(Self.isHexToken) ?? Self.isHexToken(Array(token.utf8))
        else {
            let count = token.utf8.count
            let shown = count > 210 ? "\(token.prefix(200))… (\(count) bytes)" : token
            throw .field(field, "a device token is an even number of hex digits (at most 200); got \"\(shown)\"")
        }
        return token.lowercasedToken
    }

    /// Whether `digits` is 2 to 200 hex digits, an even number of them.
    private static func isHexToken(_ digits: some Collection<UInt8>) -> Bool {
        guard !digits.isEmpty, digits.count % 2 == 0, digits.count <= 200 else { return false }
        return digits.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                UInt8(ascii: "A")...UInt8(ascii: "F"):
                true
            default: false
            }
        }
    }

    /// The target as stored: the request's `target` object.
    package var stored: String {
        let object: JSONValue =
            switch self {
            case .tokens(let tokens): ["tokens": .array(tokens.map(JSONValue.string))]
            case .user(let user): ["user": .string(user)]
            case .tags(let expression): ["tags": .string(expression.source)]
            case .all: ["all": true]
            case .activity(let id): ["activity": .string(id)]
            case .activities(let type, let user?, _): ["activities": ["type": .string(type), "user": .string(user)]]
            case .activities(let type, nil, _): ["activities": ["type": .string(type)]]
            case .channel(let id): ["channel": .string(id)]
            case .widgets(let control, let user):
                [
                    "widgets": .object(
                        JSONObject(
                            [("control", control), ("user", user)].compactMap { key, value in
                                value.map { (key: key, value: JSONValue.string($0)) }
                            }))
                ]
            }
        return object.jsonString
    }

    /// Reads what ``stored`` wrote.
    package static func parse(stored: String) throws -> NotificationTarget {
        try NotificationTarget(JSONDecoder().decode(NotificationInput.Target.self, from: Data(stored.utf8)))
    }

    /// A short description for people.
    package var summary: String {
        switch self {
        case .tokens(let tokens): tokens.count == 1 ? "token:\(tokens[0])" : "tokens:\(tokens.count)"
        case .user(let user): "user:\(user)"
        case .tags(let expression): "tags:\(expression.source)"
        case .all: "all"
        case .activity(let id): "activity:\(id)"
        case .activities(let type, let user, _): "activities:\(type)" + (user.map { " of user \($0)" } ?? "")
        case .channel(let id): "channel:\(id)"
        case .widgets(let control, let user):
            (control.map { "control:\($0)" } ?? "widgets") + (user.map { " of user \($0)" } ?? "")
        }
    }

    /// Whether it addresses Live Activities (push type `liveactivity`).
    package var isLiveActivity: Bool {
        switch self {
        case .activity, .activities, .channel: true
        default: false
        }
    }

    /// The WidgetKit push type of a `widgets` target: `controls` for a control, `widgets` otherwise.
    package var widgetPushType: APNSPushType? {
        guard case .widgets(let control, _) = self else { return nil }
        return control == nil ? .widgets : .controls
    }

    /// For a target of activity or widget tokens: the conditions after `WHERE a.app_id = ?` on `activity_tokens a`, with `?`
    /// marks, and their values.
    package var activitySelection: (sql: String, values: [String])? {
        switch self {
        case .activity(let id):
            return (" AND a.kind = 'update' AND a.activity_id = ?", [id])
        case .activities(let type, let user, let pushToStart):
            var selection = (
                sql: " AND a.kind = ? AND a.attributes_type = ?",
                values: [
                    pushToStart ? "pushToStart" : "update", type,
                ]
            )
            if let user {
                selection.sql += " AND a.user_id = ?"
                selection.values.append(user)
            }
            return selection
        case .widgets(let control, let user):
            var selection: (sql: String, values: [String]) =
                if let control { (" AND a.kind = 'control' AND a.attributes_type = ?", [control]) } else {
                    (" AND a.kind = 'widgets'", [])
                }
            if let user {
                selection.sql += " AND a.user_id = ?"
                selection.values.append(user)
            }
            return selection
        default:
            return nil
        }
    }
}
