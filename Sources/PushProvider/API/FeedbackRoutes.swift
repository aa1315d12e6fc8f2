import APNSCore
import Foundation
import HTTPTypes
import HeraldSupport
import HeraldTime
import Hummingbird
import ProviderStorage

struct FeedbackRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let notifications: NotificationOperations
    /// Notified when a device reports.
    let changes: WorkSignal
    let webhooks: WebhookSender

    /// `POST /v1/feedback`: what a device reports about a notification, in `herald device --report-url`'s form.
    struct FeedbackInput: Decodable {
        /// `delivered`, `displayed`, `response` (with `action`), `opened`, `dismissed` or `action`.
        var event: String
        /// The notification's `apns-id`, as the device received it.
        var apnsID: String
        /// For a response: `default` (opened), `dismiss`, or an action identifier.
        var action: String?
        /// A text-input action's reply.
        var text: String?
        var time: Date?
        /// The device token the notification reached: with the publishable key, the proof that the caller holds
        /// the delivery's device.
        var token: String?
        /// For `event: outcome`: what became of it (``DeliveryOutcome``), and the device's words for it.
        var outcome: String?
        var detail: String?
    }

    /// The answer to a report: the event recorded, whether it was recorded before (then nothing was counted again),
    /// whether a reply's text replaced the one recorded, and the time recorded when it is not the one given.
    struct Answer: Encodable {
        var recorded: String
        var repeated: Bool?
        var replaced: String?
        var time: Date?
        var timeAdjusted: String?
    }

    /// How far ahead of the provider's clock a device's time may be and still be kept as given (clocks drift).
    static let clockSkew: TimeInterval = 300

    /// The longest reply text recorded: UNTextInputNotificationResponse sets none, a server must.
    static let replyLimit = 4096
    /// The longest action identifier.
    static let actionLimit = 256

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("feedback") { request, context -> Response in
            let caller = context.caller
            let app = try await caller.anyApp(request, store: self.store)
            let input = try await JSONCoding.decode(FeedbackInput.self, from: request, limit: 16 << 10)
            let now = self.now()
            var event = try Self.feedbackEvent(input, now: now)
            guard let id = DeliveryMessageID(input.apnsID) else {
                throw ProviderError.field("apnsID", "\(input.apnsID) is not an apns-id this provider sent")
            }
            let unknown = ProviderError.notFound("no delivery with apns-id \(input.apnsID) for this app")
            guard let trace = try await self.notifications.deliveryTrace(apnsID: input.apnsID),
                trace.appID == app.app.id
            else {
                throw unknown
            }
            if case .device = caller {
                // The publishable key is in every copy of the app: only the device the push reached may report on it.
                guard let token = input.token else {
                    throw ProviderError.field(
                        "token", "with the publishable key, send the device token the notification reached")
                }
                // A broadcast to a channel has no token, so nothing a caller holds proves it received it.
                guard !trace.token.isEmpty, token.lowercased() == trace.token.lowercased() else { throw unknown }
            }
            let adjusted = Self.keepInWindow(&event.at, queuedAt: trace.queuedAt, now: now)
            guard
                let context = try await self.store.recordFeedback(
                    appID: app.app.id, deliveryID: id.deliveryID,
                    notificationPrefix: String(trace.notificationID.prefix(23)), event)
            else { throw unknown }
            var answer = Answer(
                recorded: event.event, time: adjusted == nil ? nil : event.at, timeAdjusted: adjusted)
            if context.isRepeat {
                answer.repeated = true
                answer.replaced = context.replacedReply ? "text" : nil
                if context.replacedReply { self.changes.notify() }
                return try JSONCoding.response(answer, status: .accepted)
            }
            self.changes.notify()
            // A response of an app with a webhook was written to the outbox with it: the sender wakes for it.
            if context.webhookURL != nil, FeedbackEvent.responses.contains(event.event) {
                self.webhooks.signal.notify()
            }
            return try JSONCoding.response(answer, status: .accepted)
        }
    }

    /// Keeps a reported time between the delivery's queueing and a little after now (``clockSkew``): a device's
    /// clock may be wrong, and a time outside that window would order the reports wrongly or, far ahead, escape
    /// retention. A time after the window becomes now, one before it the queueing time.
    ///
    /// - Returns: what was adjusted and why, for the answer; `nil` when the time is kept as given.
    static func keepInWindow(_ at: inout Date, queuedAt: Date, now: Date) -> String? {
        if at > now.addingTimeInterval(clockSkew) {
            let given = at
            at = now
            return "\(given.iso8601Milliseconds) is more than \(Int(clockSkew)) s after the provider's clock; "
                + "recorded as the time it arrived"
        }
        if at < queuedAt {
            let given = at
            at = queuedAt
            return "\(given.iso8601Milliseconds) is before the notification was queued "
                + "(\(queuedAt.iso8601Milliseconds)); recorded as that time"
        }
        return nil
    }

    /// Maps a report to the event recorded: a `response` becomes `opened`, `dismissed` or `action`.
    static func feedbackEvent(_ input: FeedbackInput, now: Date) throws(ProviderError) -> FeedbackEvent {
        let at = input.time ?? now
        try ProviderError.refuseNUL(input.text, field: "text")
        try ProviderError.refuseNUL(input.action, field: "action")
        try ProviderError.refuseInvisible(input.action, field: "action")
        try ProviderError.refuseNUL(input.detail, field: "detail")
        if let text = input.text, text.utf8.count > replyLimit {
            throw .tooLarge(
                field: "text", "the reply is \(text.utf8.count) bytes; at most \(replyLimit) are recorded: shorten it")
        }
        if let action = input.action, action.utf8.count > actionLimit {
            throw .field("action", "an action identifier is at most \(actionLimit) bytes")
        }
        switch input.event {
        case "outcome":
            guard let code = input.outcome, let outcome = DeliveryOutcome(rawValue: code) else {
                let known = DeliveryOutcome.allCases.map(\.rawValue).joined(separator: ", ")
                throw .field(
                    "outcome", "an outcome event needs outcome, one of \(known); got \(input.outcome ?? "none")")
            }
            if let detail = input.detail, detail.utf8.count > replyLimit {
                throw .tooLarge(field: "detail", "the detail is \(detail.utf8.count) bytes; at most \(replyLimit)")
            }
            return FeedbackEvent(
                event: "outcome", action: nil, reply: nil, at: at, outcome: outcome, detail: input.detail)
        case "delivered", "displayed", "opened", "dismissed":
            return FeedbackEvent(event: input.event, action: nil, reply: nil, at: at)
        case "response", "action":
            switch input.action {
            case nil where input.event == "response", "default", "com.apple.UNNotificationDefaultActionIdentifier":
                return FeedbackEvent(event: "opened", action: nil, reply: input.text, at: at)
            case "dismiss", "com.apple.UNNotificationDismissActionIdentifier":
                return FeedbackEvent(event: "dismissed", action: nil, reply: nil, at: at)
            case let action?:
                return FeedbackEvent(event: "action", action: action, reply: input.text, at: at)
            case nil:
                throw .field("action", "an action event needs the action's identifier")
            }
        default:
            throw .field("event", "must be delivered, displayed, response, opened, dismissed, action or outcome")
        }
    }
}
