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
            templates[notificationID] = Template(stored, app: app.app, messageKey: store.messageKey)
            if let trace = stored.traceContext { traceContexts[notificationID] = trace }
        }
        if templates.values.contains(where: { $0.encrypted != nil }) {
            keys = try await store.publicKeys(appID: app.app.id, tokens: deliveries.compactMap(\.address.deviceToken))
        }
        // What is written for each device (its language, its variables, its quiet hours): its settings, read once
        // for the batch.
        var settings: [String: DeviceSettings] = [:]
        let personalIDs = Set(templates.filter(\.value.isPersonal).keys)
        if !personalIDs.isEmpty {
            let tokens = deliveries.filter { personalIDs.contains($0.notificationID) }.compactMap(\.address.deviceToken)
            settings = try await store.deviceSettings(appID: app.app.id, tokens: tokens)
        }
        var caps = FrequencyCapGate(rules: templates.compactMapValues(\.capRule))
        try await caps.load(deliveries, settings: settings, appID: app.app.id, store: store, now: now)
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
            if let quiet = template.quietHours, let zone = settings[token]?.timeZone {
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
            guard caps.admits(delivery.notificationID, token: token, userID: settings[token]?.userID) else {
                failures.append(Self.failure(delivery, Self.cappedReason, at: now))
                continue
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
                var (body, carriesReceiptID) = template.body(for: settings[token]?.locale, choices: &languageChoices)
                if template.variables {
                    (body, carriesReceiptID) = template.render(body, carriesReceiptID, settings: settings[token])
                }
                notifications.append(
                    APNSNotification(
                        deviceToken: token, headers: headers,
                        payload: carriesReceiptID ? Self.body(body, receiptID: messageIDText) : body))
            }
            self.deliveries.append(delivery)
            waitLimits.append(template.waitLimit)
        }
        try await caps.record(appID: app.app.id, store: store, now: now)
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
    /// The `reason` of a delivery not sent because its user or device had its category's frequency cap already.
    static let cappedReason = "Capped"

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
}
