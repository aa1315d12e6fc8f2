import APNSClient
import APNSCore
import Crypto
import Foundation
import HeraldSupport
import NIOCore
import ProviderStorage

/// One app's leased deliveries turned into `APNSNotification`s: each notification's payload and headers built once,
/// an encrypted field sealed per device.
struct PreparedBatch: Sendable {
    var notifications: [APNSNotification] = []
    /// The delivery each of ``notifications`` is, at the same position: what an answer is recorded against.
    var deliveries: [LeasedDelivery] = []
    /// How long each of ``deliveries`` may wait for APNs to be reachable: its notification's `apns-expiration`, or
    /// ``APNSReachability/defaultWait`` after it was created when it has none (`0`: not at all).
    var waitLimits: [Date] = []
    /// Deliveries that cannot be sent (their notification is gone, or the device has no usable key).
    var failures: [DeliveryResult] = []
    var rateLimit: Int
    /// The app as last changed (its id and the time of its last change): what APNs' acceptance of its credentials
    /// holds for (``DeliveryEngine/confirmedCredentials``).
    var appRevision: String
    /// The trace context each notification was created in (``StoredNotification/traceContext``), by its id: only
    /// those of traced notifications.
    var traceContexts: [String: String] = [:]
    /// The app's bundle ID (the topic its notifications go to).
    var bundleID: String
    /// Whether the app sends to a local APNs, which is handed each request's `traceparent` (Apple's never is).
    var sendsTraceParent: Bool

    init(_ deliveries: [LeasedDelivery], app: StoredApp, store: any DeliveryQueue, now: Date)
        async throws(ProviderError)
    {
        rateLimit = app.app.rateLimit
        bundleID = app.app.bundleID
        let host = URL(string: app.app.endpoint)?.host?.lowercased() ?? ""
        sendsTraceParent = !(host == "push.apple.com" || host.hasSuffix(".push.apple.com"))
        appRevision = "\(app.app.id) \(app.app.updatedAt.timeIntervalSince1970)"
        var templates: [String: Template] = [:]
        var keys: [String: String] = [:]
        for notificationID in Set(deliveries.map(\.notificationID)) {
            guard let stored = try await store.notification(id: notificationID) else { continue }
            templates[notificationID] = Template(
                stored, bundleID: app.app.bundleID, messageKey: store.messageKey, appQuietHours: app.app.quietHours)
            if let trace = stored.traceContext { traceContexts[notificationID] = trace }
        }
        if templates.values.contains(where: { $0.encrypted != nil }) {
            keys = try await store.publicKeys(appID: app.app.id, tokens: deliveries.compactMap(\.address.deviceToken))
        }
        // Content in several languages: each device's locale, read once for the batch.
        var locales: [String: String] = [:]
        let localizedIDs = Set(templates.filter { !$0.value.languages.isEmpty }.keys)
        if !localizedIDs.isEmpty {
            let tokens = deliveries.filter { localizedIDs.contains($0.notificationID) }.compactMap(
                \.address.deviceToken)
            locales = try await store.deviceLocales(appID: app.app.id, tokens: tokens)
        }
        // Quiet hours: each device's time zone, read once for the batch, and the end of the window each zone is in.
        var timeZones: [String: String] = [:]
        let quietIDs = Set(templates.filter { $0.value.quietHours != nil }.keys)
        if !quietIDs.isEmpty {
            let tokens = deliveries.filter { quietIDs.contains($0.notificationID) }.compactMap(\.address.deviceToken)
            timeZones = try await store.timeZones(appID: app.app.id, tokens: tokens)
        }
        var windowEnds: [String: Date?] = [:]
        // The language each locale reads, found once per notification and locale.
        var languageChoices: [String: String?] = [:]
        notifications.reserveCapacity(deliveries.count)
        self.deliveries.reserveCapacity(deliveries.count)
        waitLimits.reserveCapacity(deliveries.count)
        for delivery in deliveries {
            guard let template = templates[delivery.notificationID] else {
                failures.append(Self.failure(delivery, "NotificationDeleted", at: now))
                continue
            }
            // It waited (its app paused, APNs unreachable, retries) past its own apns-expiration: APNs would not
            // keep it either, so it is not sent.
            if let expiresAt = template.expiresAt, expiresAt < now {
                failures.append(Self.failure(delivery, Self.expiredReason, at: now))
                continue
            }
            let messageIDText = template.messageIDs.messageID(for: delivery.id).string
            let messageID = APNSMessageID(headerValue: messageIDText)
            let token: String
            switch delivery.address {
            case .device(let deviceToken): token = deviceToken
            case .channel(let channel):
                let headers = APNSBroadcastHeaders(
                    channelID: channel, priority: template.headers.priority ?? .immediate,
                    expiration: template.broadcastExpiration, requestID: messageID)
                notifications.append(
                    APNSNotification(
                        broadcast: APNSBroadcast(bundleID: app.app.bundleID, headers: headers), payload: template.body))
                self.deliveries.append(delivery)
                waitLimits.append(template.waitLimit)
                continue
            }
            if let quiet = template.quietHours, let zone = timeZones[token] {
                let key = delivery.notificationID + "\u{0}" + zone
                if windowEnds[key] == nil {
                    windowEnds[key] = .some(TimeZone(identifier: zone).flatMap { quiet.end(holding: now, in: $0) })
                }
                if case .some(.some(let end)) = windowEnds[key] {
                    failures.append(
                        quiet.drops
                            ? Self.failure(delivery, Self.quietHoursReason, at: now)
                            : .wait(id: delivery.id, reason: Self.quietHoursReason, notBefore: end))
                    continue
                }
            }
            var headers = template.headers
            headers.apnsID = messageID
            if let (key, plaintext) = template.encrypted {
                guard let keyText = keys[token], let keyData = Data(base64Encoded: keyText),
                    let publicKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: keyData),
                    let envelope = try? EndToEndEnvelope.seal(plaintext, to: publicKey)
                else {
                    failures.append(Self.failure(delivery, "MissingPublicKey", at: now))
                    continue
                }
                var payload = template.payload
                payload.root[key] = envelope.json
                if template.carriesReceiptID { payload.root[Self.receiptIDKey] = .string(messageIDText) }
                notifications.append(
                    APNSNotification(deviceToken: token, headers: headers, payload: payload))
            } else {
                let (body, carriesReceiptID) = template.body(for: locales[token], choices: &languageChoices)
                notifications.append(
                    APNSNotification(
                        deviceToken: token, headers: headers,
                        payload: carriesReceiptID ? Self.body(body, receiptID: messageIDText) : body))
            }
            self.deliveries.append(delivery)
            waitLimits.append(template.waitLimit)
        }
        handTraceToLocalAPNs()
    }

    /// For a local APNs: each traced notification's requests carry the `traceparent` of its fan-out, so the gateway's
    /// span joins the trace (a chunk with request spans hands on theirs instead, ``ChunkSpans/traced(_:_:)``).
    private mutating func handTraceToLocalAPNs() {
        guard sendsTraceParent, !traceContexts.isEmpty else { return }
        let parents = traceContexts.compactMapValues { TraceCarrier.decode($0)["traceparent"] }
        for index in notifications.indices {
            if let parent = parents[deliveries[index].notificationID] { notifications[index].traceParent = parent }
        }
    }

    /// The `reason` of a delivery not sent because its notification's `apns-expiration` passed while it waited.
    static let expiredReason = "ExpiredBeforeSent"
    /// The `reason` of a delivery held (or dropped) because it fell in its device's quiet hours.
    static let quietHoursReason = "QuietHours"

    /// The payload key that carries a delivery's `apns-id` to the app (HeraldKit reads it for its receipts): iOS
    /// does not hand an app the `apns-id` header, and a request's identifier is the collapse ID when there is one.
    static let receiptIDKey = "herald-id"
    /// What the key with its value adds at most: `"herald-id":"<36 characters>",`.
    static let receiptIDSize = 50

    /// `body` with `"herald-id": "<apns-id>"` as its first member (the body is a JSON object: the provider wrote it).
    static func body(_ body: ByteBuffer, receiptID: String) -> ByteBuffer {
        var out = ByteBuffer()
        out.reserveCapacity(body.readableBytes + receiptIDSize)
        out.writeStaticString("{\"herald-id\":\"")
        out.writeString(receiptID)
        out.writeStaticString("\"")
        var rest = body
        rest.moveReaderIndex(forwardBy: 1)
        let isEmpty = rest.readableBytesView.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "}")
        if !isEmpty { out.writeStaticString(",") }
        out.writeBuffer(&rest)
        return out
    }

    private static func failure(_ delivery: LeasedDelivery, _ reason: String, at now: Date) -> DeliveryResult {
        .rejected(
            id: delivery.id, notificationID: delivery.notificationID, status: nil, reason: reason, at: now,
            deactivate: nil)
    }

    /// What every delivery of one notification shares.
    private struct Template {
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
        /// The quiet window its deliveries keep (its own, else the app's): `nil` when it has none, turned it off, or
        /// is not an alert a person would be woken by (another push type, `time-sensitive` or `critical`).
        var quietHours: QuietHours?
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

        init(_ stored: StoredNotification, bundleID: String, messageKey: SymmetricKey, appQuietHours: QuietHours?) {
            messageIDs = DeliveryMessageID.Maker(notificationID: stored.id, key: messageKey)
            notificationID = stored.id
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
                quietHours = QuietHours(stored: stored.quietHours) ?? appQuietHours
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
