public import Foundation
import HeraldJSON

extension UNNotificationRequest {
    /// The request iOS makes from a remote notification: content from the payload's `aps` dictionary, the whole
    /// payload as `userInfo`, and a ``UNPushNotificationTrigger``.
    ///
    /// Alert fields map as iOS maps them: a string alert is the body; `title-loc-key`, `subtitle-loc-key` and
    /// `loc-key` are looked up in `localizedStrings` (the key itself is shown when it is missing) and their `%@` and
    /// `%1$@` placeholders filled from the matching `-loc-args`.
    ///
    /// - Parameters:
    ///   - identifier: the request identifier (iOS uses the notification's `apns-id`).
    ///   - apnsPayload: the payload bytes as APNs delivered them.
    ///   - localizedStrings: the app's `Localizable.strings` table, when it has one.
    /// - Throws: ``UNPayloadError`` when the payload is not a JSON object.
    public convenience init(
        identifier: String,
        apnsPayload: Data,
        localizedStrings: [String: String]? = nil
    ) throws {
        guard let root = try? JSONValue(parsing: apnsPayload), let payload = root.object else {
            throw UNPayloadError(message: "the payload is not a JSON object")
        }
        let content = UNMutableNotificationContent()
        if let aps = payload["aps"] {
            APNSPayloadMapping(localizedStrings: localizedStrings).apply(aps, to: content)
        }
        content.userInfo = root.foundationValue as? [String: Any] ?? [:]
        self.init(identifier: identifier, content: content, trigger: UNPushNotificationTrigger(repeats: false))
    }
}

/// A remote payload that cannot become a notification request.
public struct UNPayloadError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let message: String
    public var description: String { message }
}

/// How iOS turns the `aps` dictionary into notification content.
struct APNSPayloadMapping {
    var localizedStrings: [String: String]?

    func apply(_ aps: JSONValue, to content: UNMutableNotificationContent) {
        applyAlert(aps["alert"], to: content)
        if let badge = aps["badge"]?.number?.doubleValue, badge >= 0, badge.rounded() == badge {
            content.badge = NSNumber(value: badge.clampedInt)
        }
        content.sound = sound(aps["sound"])
        content.categoryIdentifier = aps["category"]?.string ?? ""
        content.threadIdentifier = aps["thread-id"]?.string ?? ""
        content.targetContentIdentifier = aps["target-content-id"]?.string
        content.filterCriteria = aps["filter-criteria"]?.string
        if let level = aps["interruption-level"]?.string.flatMap(UNNotificationInterruptionLevel.init) {
            content.interruptionLevel = level
        }
        if let score = aps["relevance-score"]?.number?.doubleValue {
            content.relevanceScore = min(max(score, 0), 1)
        }
    }

    private func applyAlert(_ alert: JSONValue?, to content: UNMutableNotificationContent) {
        if let text = alert?.string {
            content.body = text
            return
        }
        guard let alert, case .object = alert else { return }
        content.title = text(alert, plain: "title", key: "title-loc-key", arguments: "title-loc-args")
        content.subtitle = text(alert, plain: "subtitle", key: "subtitle-loc-key", arguments: "subtitle-loc-args")
        content.body = text(alert, plain: "body", key: "loc-key", arguments: "loc-args")
        content.launchImageName = alert["launch-image"]?.string ?? ""
        if let argument = alert["summary-arg"]?.string { content.summaryArgument = argument }
        if let count = alert["summary-arg-count"]?.number?.doubleValue, count >= 1 {
            content.summaryArgumentCount = count.clampedInt
        }
    }

    private func text(_ alert: JSONValue, plain: String, key: String, arguments: String) -> String {
        guard let locKey = alert[key]?.string else { return alert[plain]?.string ?? "" }
        let format = localizedStrings?[locKey] ?? locKey
        return Self.format(format, alert[arguments]?.array?.map(Self.argumentText) ?? [])
    }

    /// Fills `%@` (in order) and `%n$@` (by position) placeholders; `%%` is a percent sign.
    static func format(_ format: String, _ values: [String]) -> String {
        var output = ""
        var next = 0
        var characters = format[...]
        while let percent = characters.firstIndex(of: "%") {
            output += characters[..<percent]
            let rest = characters[characters.index(after: percent)...]
            if rest.hasPrefix("%") {
                output += "%"
                characters = rest.dropFirst()
            } else if rest.hasPrefix("@") {
                output += next < values.count ? values[next] : ""
                next += 1
                characters = rest.dropFirst()
            } else if let dollar = rest.firstIndex(of: "$"), let position = Int(rest[..<dollar]),
                rest[rest.index(after: dollar)...].hasPrefix("@")
            {
                output += position >= 1 && position <= values.count ? values[position - 1] : ""
                characters = rest[rest.index(dollar, offsetBy: 2)...]
            } else {
                output += "%"
                characters = rest
            }
        }
        return output + characters
    }

    /// The text iOS shows for a value in a `loc-args` array.
    private static func argumentText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let number): number.intValue.map(String.init) ?? String(number.doubleValue)
        case .bool(let flag): flag ? "1" : "0"
        default: ""
        }
    }

    private func sound(_ value: JSONValue?) -> UNNotificationSound? {
        if let name = value?.string {
            guard !name.isEmpty else { return nil }
            return name == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(name))
        }
        guard let sound = value, case .object = sound else { return nil }
        let name = sound["name"]?.string.flatMap { $0 == "default" ? nil : UNNotificationSoundName($0) }
        let critical = sound["critical"]?.number?.doubleValue == 1
        let volume = sound["volume"]?.number.map { Float($0.doubleValue) }
        return UNNotificationSound(name: name, isCritical: critical, volume: volume)
    }
}
