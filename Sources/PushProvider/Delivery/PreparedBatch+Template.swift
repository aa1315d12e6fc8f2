import APNSClient
import APNSCore
import Crypto
import Foundation
import NIOCore
import ProviderStorage

extension PreparedBatch {
    /// What every delivery of one notification shares.
    struct Template {
        var headers: APNSRequestHeaders
        var payload: APNSPayload
        var body: ByteBuffer
        var encrypted: (key: String, plaintext: Data)?
        /// Whether each delivery's payload carries its `apns-id` (``PreparedBatch/receiptIDKey``): for the push types
        /// an app's code sees (`alert`, `background`), when it still fits under APNs' size limit.
        var carriesReceiptID: Bool
        /// The deliveries' `apns-id`s.
        var messageIDs: DeliveryMessageID.Maker
        /// A broadcast's `apns-expiration`, which APNs requires: `0` (one attempt) unless one was given.
        var broadcastExpiration: APNSExpiration
        /// The latest time a delivery may still wait for APNs to be reachable.
        var waitLimit: Date
        /// The notification's own `apns-expiration`, when it has one other than `0` (now or never).
        var expiresAt: Date?
        /// Whether its text names device attributes (``TextVariables``), filled in for each device.
        var variables: Bool
        /// Whether what each device gets depends on the device's settings (its language, variables, quiet hours or
        /// the user a frequency cap counts).
        var isPersonal: Bool { variables || quietHours != nil || !languages.isEmpty || capRule != nil }
        /// APNs' size limit of its push type.
        var maximumSize: Int

        /// `body` with a device's attributes (its own, else its user's: ``DeviceSettings``) in its variables, and
        /// whether its `apns-id` still fits; with the defaults when the device's values would make it too big.
        func render(_ body: ByteBuffer, _ carriesReceiptID: Bool, settings: DeviceSettings?) -> (ByteBuffer, Bool) {
            let parse = { (text: String?) in text.flatMap { try? JSONValue(parsing: Data($0.utf8)) }?.object }
            var rendered = TextVariables.render(
                body, attributes: parse(settings?.attributes), userAttributes: parse(settings?.userAttributes))
            if rendered.readableBytes > maximumSize { rendered = TextVariables.render(body, attributes: nil) }
            return (rendered, carriesReceiptID && rendered.readableBytes + PreparedBatch.receiptIDSize <= maximumSize)
        }

        /// The quiet window its deliveries keep (its own, else the app's): `nil` when it has none, turned it off, or
        /// is not an alert a person would be woken by (another push type, `time-sensitive` or `critical`).
        var quietHours: QuietHours?
        /// The app's frequency caps of its category, when it is an alert in one that has caps.
        var capRule: FrequencyCapGate.Rule?
        /// Its payload in each language of its content, by tag (lowercased), and whether it carries the `apns-id`.
        var languages: [String: (body: ByteBuffer, carriesReceiptID: Bool)] = [:]
        var notificationID: String

        /// The payload a device with `locale` gets, and whether its `apns-id` goes in it; `choices` keeps the
        /// language each locale read, so a batch matches each locale once.
        func body(for locale: String?, choices: inout [String: String?]) -> (ByteBuffer, Bool) {
            guard !languages.isEmpty, let locale else { return (body, carriesReceiptID) }
            let key = notificationID + "\u{0}" + locale
            let tag: String?
            if let chosen = choices[key] {
                tag = chosen
            } else {
                tag = LanguageTag.best(for: locale, among: Set(languages.keys))
                choices[key] = .some(tag)
            }
            guard let tag, let localized = languages[tag] else { return (body, carriesReceiptID) }
            return localized
        }

        init(_ stored: StoredNotification, app: ProviderApp, messageKey: MessageKey) {
            let bundleID = app.bundleID
            messageIDs = DeliveryMessageID.Maker(notificationID: stored.id, key: messageKey)
            notificationID = stored.id
            variables = stored.variables
            let pushType = APNSPushType(rawValue: stored.pushType)
            headers = APNSRequestHeaders(
                pushType: pushType, priority: stored.priority.map(APNSPriority.init(rawValue:)),
                expiration: stored.expiration.flatMap { APNSExpiration(headerValue: String($0)) } ?? .storagePolicy,
                collapseID: stored.collapseID.flatMap(APNSCollapseID.init(rawValue:)),
                topic: pushType.topic(forBundleID: bundleID) ?? bundleID)
            broadcastExpiration =
                stored.expiration.flatMap { APNSExpiration(headerValue: String($0)) } ?? .immediately
            waitLimit =
                switch stored.expiration {
                case nil: stored.createdAt.addingTimeInterval(APNSReachability.defaultWait)
                case 0: stored.createdAt
                case let seconds?: Date(timeIntervalSince1970: TimeInterval(seconds))
                }
            expiresAt = stored.expiration.flatMap { $0 > 0 ? Date(timeIntervalSince1970: TimeInterval($0)) : nil }
            payload = (try? APNSPayload(data: stored.payload)) ?? APNSPayload()
            maximumSize = pushType.maximumPayloadSize
            body = ByteBuffer(bytes: stored.payload)
            // A payload that has the key already (the sender's own) keeps it: a second would be a duplicate key.
            carriesReceiptID =
                (pushType == .alert || pushType == .background) && stored.payload.first == UInt8(ascii: "{")
                && stored.payload.count + PreparedBatch.receiptIDSize <= pushType.maximumPayloadSize
                && payload.root[PreparedBatch.receiptIDKey] == nil
            if let key = stored.encryptedKey, let plaintext = stored.encrypted {
                encrypted = (key, plaintext)
            }
            let level = payload.aps["interruption-level"]?.string
            if pushType == .alert, level != "time-sensitive", level != "critical",
                stored.quietHours != StoredNotification.quietHoursOff
            {
                quietHours = QuietHours(stored: stored.quietHours) ?? app.quietHours
            }
            if pushType == .alert, let category = stored.capCategory,
                let caps = app.frequencyCaps?.filter({ $0.category == category }), !caps.isEmpty
            {
                capRule = FrequencyCapGate.Rule(
                    category: category, caps: caps, enforced: level != "time-sensitive" && level != "critical")
            }
            if let localized = stored.localized, case .object(let map)? = try? JSONValue(parsing: localized) {
                for member in map.members {
                    let body = member.value.encoded()
                    languages[member.key.lowercased()] = (
                        ByteBuffer(bytes: body),
                        carriesReceiptID && body.count + PreparedBatch.receiptIDSize <= pushType.maximumPayloadSize
                    )
                }
            }
        }
    }
}
