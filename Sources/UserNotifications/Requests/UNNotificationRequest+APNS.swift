public import Foundation

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
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: apnsPayload)
        } catch {
            throw UNPayloadError(message: "the payload is not valid JSON")
        }
        guard let payload = object as? [String: Any] else {
            throw UNPayloadError(message: "the payload is not a JSON object")
        }
        let content = UNMutableNotificationContent()
        if let aps = payload["aps"] as? [String: Any] {
            APNSPayloadMapping(localizedStrings: localizedStrings).apply(aps, to: content)
        }
        content.userInfo = payload
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

    func apply(_ aps: [String: Any], to content: UNMutableNotificationContent) {
        applyAlert(aps["alert"], to: content)
        if let badge = aps["badge"] as? NSNumber, !(badge is Bool), badge.doubleValue >= 0 {
            content.badge = NSNumber(value: badge.intValue)
        }
        content.sound = sound(aps["sound"])
        content.categoryIdentifier = aps["category"] as? String ?? ""
        content.threadIdentifier = aps["thread-id"] as? String ?? ""
        content.targetContentIdentifier = aps["target-content-id"] as? String
        content.filterCriteria = aps["filter-criteria"] as? String
        if let level = (aps["interruption-level"] as? String).flatMap(UNNotificationInterruptionLevel.init) {
            content.interruptionLevel = level
        }
        if let score = aps["relevance-score"] as? NSNumber {
            content.relevanceScore = min(max(score.doubleValue, 0), 1)
        }
    }

    private func applyAlert(_ alert: Any?, to content: UNMutableNotificationContent) {
        if let text = alert as? String {
            content.body = text
            return
        }
        guard let alert = alert as? [String: Any] else { return }
        content.title = text(alert, plain: "title", key: "title-loc-key", arguments: "title-loc-args")
        content.subtitle = text(alert, plain: "subtitle", key: "subtitle-loc-key", arguments: "subtitle-loc-args")
        content.body = text(alert, plain: "body", key: "loc-key", arguments: "loc-args")
        content.launchImageName = alert["launch-image"] as? String ?? ""
        if let argument = alert["summary-arg"] as? String { content.summaryArgument = argument }
        if let count = alert["summary-arg-count"] as? NSNumber, count.intValue > 0 {
            content.summaryArgumentCount = count.intValue
        }
    }

    private func text(_ alert: [String: Any], plain: String, key: String, arguments: String) -> String {
        guard let locKey = alert[key] as? String else { return alert[plain] as? String ?? "" }
        let format = localizedStrings?[locKey] ?? locKey
        let values = (alert[arguments] as? [Any])?.map { "\($0)" } ?? []
        return Self.format(format, values)
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

    private func sound(_ value: Any?) -> UNNotificationSound? {
        if let name = value as? String {
            guard !name.isEmpty else { return nil }
            return name == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(name))
        }
        guard let sound = value as? [String: Any] else { return nil }
        let name = (sound["name"] as? String).flatMap { $0 == "default" ? nil : UNNotificationSoundName($0) }
        let critical = (sound["critical"] as? NSNumber)?.intValue == 1
        let volume = (sound["volume"] as? NSNumber)?.floatValue
        return UNNotificationSound(name: name, isCritical: critical, volume: volume)
    }
}
