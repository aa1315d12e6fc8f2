import APNSCore
import Foundation
import NIOCore
import ProviderStorage

/// A notification request checked against the lint rules and ready to store: the exact payload, the headers, and
/// who gets it when.
struct NotificationPlan: Sendable {
    var target: NotificationTarget
    /// The payload as sent (before an encrypted field is added per device).
    var payload: Data
    var pushType: String
    var priority: Int?
    var expiration: Int?
    var collapseID: String?
    /// The JSON object to seal per device, and the key it goes under.
    var encrypted: (key: String, plaintext: Data)?
    var sendAt: Date
    var dailyAt: DailyTime?
    /// The alert in other languages, when the content gave some.
    var localized: LocalizedContent?
    /// Its own quiet window, as stored (``StoredNotification/quietHours``): JSON, `off`, or `nil` for the app's.
    var quietHours: String?
    /// Whether its content's text names device attributes (``TextVariables``).
    var variables = false
    /// The category its app's frequency caps count it in.
    var capCategory: String?

    /// Checks a request for `app`.
    ///
    /// - Throws: ``ProviderError`` naming the field: the target, the content, or the lint rule APNs would reject it
    ///   for.
    init(_ input: NotificationInput, bundleID: String, now: Date = Date()) throws(ProviderError) {
        try ProviderError.refuseNUL(input.collapseID, field: "collapseID")
        try ProviderError.refuseNUL(input.encryptedKey, field: "encryptedKey")
        var target = try NotificationTarget(input.target)
        let requestedPushType = try Self.pushType(input, for: target)
        var payload: APNSPayload
        switch (input.payload, input.content) {
        case (let raw?, nil):
            guard case .object(let root) = raw else {
                throw .field("payload", "must be a JSON object with an \"aps\" dictionary")
            }
            payload = APNSPayload(root)
        case (nil, let content?):
            payload = try Self.payload(from: content)
        case (nil, nil) where target.widgetPushType != nil:
            // WidgetKit reads nothing else: the reload signal is the whole payload.
            payload = APNSPayload(
                JSONObject([(key: "aps", value: .object(JSONObject([(key: "content-changed", value: true)])))]))
        case (nil, nil) where input.encrypted != nil:
            // Only an encrypted field: the visible alert is the placeholder added below.
            payload = APNSPayload(JSONObject([(key: "aps", value: .object(JSONObject()))]))
        case (nil, nil):
            throw .field("content", "give the notification's content (title, body, ...) or a raw payload")
        case (.some, .some):
            throw .field("payload", "give either payload or content, not both")
        }
        if let encrypted = input.encrypted {
            guard case .object = encrypted else {
                throw .field("encrypted", "must be a JSON object such as {\"title\": ..., \"body\": ...}")
            }
            let key = input.encryptedKey ?? "e2e"
            guard key != "aps", !key.isEmpty else { throw .field("encryptedKey", "must be a custom key, not aps") }
            var aps = payload.aps
            aps["mutable-content"] = 1
            if aps["alert"] == nil { aps["alert"] = ["body": "(encrypted)"] }
            payload.root["aps"] = .object(aps)
            // A stand-in of the envelope's size so the size check covers the sealed payload.
            let sealedSize = encrypted.encoded().count * 4 / 3 + 100
            payload.root[key] = .string(String(repeating: "x", count: sealedSize))
            self.encrypted = (key, encrypted.encoded())
        } else {
            encrypted = nil
        }
        try Self.checkEvent(payload, target: &target)
        self.target = target
        // Content's text may name device attributes: what is linted is what a device without them gets.
        // A payload that comes with languages is composed text too.
        let fromContent = input.content != nil || input.languages != nil
        if fromContent { variables = try TextVariables.check(.object(payload.root), field: "payload") }
        if variables, input.encrypted != nil {
            throw .field("encrypted", "goes without variables ({{name|default}}): the device decrypts its own text")
        }
        let lint = { (text: Data) throws(ProviderError) -> APNSLinter.Report in
            let body =
                fromContent
                ? Data(TextVariables.render(ByteBuffer(bytes: text), attributes: nil).readableBytesView) : text
            let report = APNSLinter.lint(
                APNSLinter.Request(
                    body: body, pushType: requestedPushType, priority: input.priority.map(String.init),
                    topic: requestedPushType.flatMap { APNSPushType(rawValue: $0).topic(forBundleID: bundleID) }
                        ?? bundleID,
                    expiration: input.expiration.map(String.init), collapseID: input.collapseID, now: now))
            if let error = report.errors.first {
                throw .invalid(
                    field: Self.field(for: error),
                    message: "\(error.message) (APNs would answer \(error.reason?.rawValue ?? "400"))")
            }
            return report
        }
        let report = try lint(payload.encoded())
        if input.content != nil, input.languages != nil {
            throw .field("languages", "goes beside a payload; with content, give the languages as content.languages")
        }
        if let (languages, field) = input.content?.languages.map({ ($0, "content.languages") })
            ?? input.languages.map({ ($0, "languages") })
        {
            guard !target.isLiveActivity, target.widgetPushType == nil, input.encrypted == nil else {
                throw .field(
                    field,
                    "goes with an alert to devices: a Live Activity, a widget reload or encrypted content takes none")
            }
            localized = try LocalizedContent(languages, field: field, default: payload) {
                body throws(ProviderError) in _ = try lint(body)
            }
            variables = variables || localized?.variables == true
        }
        // APNs accepts a widget push that WidgetKit would do nothing with; the provider composes it, so it refuses.
        if target.widgetPushType != nil,
            let useless = report.warnings.first(where: { Self.widgetRules.contains($0.rule) })
        {
            throw .invalid(field: useless.location.map { "payload.\($0)" } ?? "payload", message: useless.message)
        }
        if let key = encrypted?.key { payload.root[key] = nil }
        self.payload = payload.encoded()
        pushType = requestedPushType ?? report.pushType.rawValue
        priority = input.priority
        expiration = input.expiration
        collapseID = input.collapseID
        sendAt = input.sendAt ?? now
        dailyAt = try input.dailyAt.map { text throws(ProviderError) in try DailyTime(parsing: text) }
        switch input.quietHours {
        case nil: quietHours = nil
        case .bool(false)?: quietHours = StoredNotification.quietHoursOff
        case let value?: quietHours = try QuietHours.parse(value, field: "quietHours").stored
        }
        capCategory = try input.capCategory.map { name throws(ProviderError) in
            try FrequencyCap.checkCategory(name, field: "capCategory")
        }
    }

    /// The push type asked for: `liveactivity` for a Live Activity target and `widgets` or `controls` for a widgets
    /// target, which take no other, no encrypted field (they run no service extension) and no daily send (they have
    /// no devices' time zones).
    private static func pushType(_ input: NotificationInput, for target: NotificationTarget) throws(ProviderError)
        -> String?
    {
        if let widgetType = target.widgetPushType {
            guard input.pushType == nil || input.pushType == widgetType.rawValue else {
                throw .field("pushType", "a widgets target takes pushType \(widgetType.rawValue) (or none)")
            }
            guard input.encrypted == nil, input.dailyAt == nil else {
                throw .field(
                    input.encrypted != nil ? "encrypted" : "dailyAt",
                    "a widget reload carries only content-changed and has no time zones: leave it out")
            }
            return widgetType.rawValue
        }
        guard target.isLiveActivity else { return input.pushType }
        guard input.pushType == nil || input.pushType == APNSPushType.liveactivity.rawValue else {
            throw .field(
                "pushType", "a Live Activity target (activity, activities, channel) takes pushType liveactivity")
        }
        guard input.encrypted == nil else {
            throw .field("encrypted", "a Live Activity runs no service extension to decrypt it: leave encrypted out")
        }
        guard input.dailyAt == nil else {
            throw .field("dailyAt", "a Live Activity target has no time zones for a daily send: use sendAt")
        }
        return APNSPushType.liveactivity.rawValue
    }

    /// A Live Activity target and the payload's `event` must agree: `start` goes to push-to-start tokens (target
    /// `activities`), `update` and `end` to activities' tokens or a channel.
    private static func checkEvent(_ payload: APNSPayload, target: inout NotificationTarget) throws(ProviderError) {
        guard target.isLiveActivity else { return }
        let start = payload.aps["event"]?.string == "start"
        switch target {
        case .activities(let type, let user, _):
            target = .activities(type: type, user: user, pushToStart: start)
        case .activity, .channel:
            if start {
                throw .field(
                    "payload.aps.event",
                    "start creates an activity through a push-to-start token: target {\"activities\": {\"type\": "
                        + "..., \"user\": ...}}; an activity or a channel takes update or end")
            }
        default: break
        }
    }

    private static func payload(from content: NotificationInput.Content) throws(ProviderError) -> APNSPayload {
        var root = JSONObject()
        if case .object(let data)? = content.data {
            for member in data.members { root[member.key] = member.value }
        } else if content.data != nil {
            throw .field("content.data", "must be a JSON object of custom keys")
        }
        var aps = JSONObject()
        var alert = JSONObject()
        if let title = content.title { alert["title"] = .string(title) }
        if let subtitle = content.subtitle { alert["subtitle"] = .string(subtitle) }
        if let body = content.body { alert["body"] = .string(body) }
        if !alert.members.isEmpty { aps["alert"] = .object(alert) }
        if let badge = content.badge { aps["badge"] = .number(JSONNumber(badge)) }
        if let sound = content.sound { aps["sound"] = .string(sound) }
        if let category = content.category { aps["category"] = .string(category) }
        if let threadID = content.threadID { aps["thread-id"] = .string(threadID) }
        if content.mutableContent == true || content.mediaURL != nil { aps["mutable-content"] = 1 }
        if content.contentAvailable == true { aps["content-available"] = 1 }
        if let mediaURL = content.mediaURL {
            guard URL(string: mediaURL)?.scheme?.hasPrefix("http") == true else {
                throw .field("content.mediaURL", "must be an http or https URL")
            }
            root["media-url"] = .string(mediaURL)
        }
        guard !aps.members.isEmpty else {
            throw .field("content", "give at least one of title, body, badge, sound or contentAvailable")
        }
        root["aps"] = .object(aps)
        return APNSPayload(root)
    }

    /// The lint rules that make a widgets target's payload useless: WidgetKit would reload nothing or show nothing.
    private static let widgetRules: Set<String> = [
        "widgets-without-content-changed", "widgets-push-shows-nothing", "content-changed-not-true",
    ]

    /// The input field a lint diagnostic is about.
    private static func field(for diagnostic: APNSDiagnostic) -> String {
        switch diagnostic.reason?.rawValue {
        case "InvalidPushType": "pushType"
        case "BadPriority": "priority"
        case "BadExpirationDate": "expiration"
        case "BadCollapseId": "collapseID"
        case "BadTopic", "MissingTopic": "pushType"
        default: diagnostic.location.map { "payload.\($0)" } ?? "payload"
        }
    }
}

/// A time of day, `HH:MM`, for daily sends.
struct DailyTime: Sendable, Hashable {
    var hour: Int
    var minute: Int

    init(parsing text: String) throws(ProviderError) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour),
            (0..<60).contains(minute)
        else { throw .field("dailyAt", "give a local time as HH:MM, such as 07:00; got \"\(text)\"") }
        self.hour = hour
        self.minute = minute
    }

    var text: String { String(format: "%02d:%02d", hour, minute) }

    /// The next moment at this time of day in `timeZone`, at or after `date`.
    func next(after date: Date, in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.nextDate(
            after: date.addingTimeInterval(-1), matching: DateComponents(hour: hour, minute: minute, second: 0),
            matchingPolicy: .nextTime) ?? date
    }
}
