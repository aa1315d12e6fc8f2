import APNSCore
import Foundation
import HTTPTypes
import HeraldSupport
import HeraldTime
import Hummingbird
import ProviderStorage
import Tracing

struct FeedbackRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    /// Where receipts are written, a batch at a time.
    let receipts: ReceiptBatcher
    /// Notified when a device reports.
    let changes: WorkSignal
    let webhooks: WebhookSender
    /// Where receipts are counted, recorded or refused.
    let metrics: ProviderMetrics
    /// Where a receipt of a traced notification is traced, in that notification's trace; `nil`: traces are off.
    let tracer: HeraldTracer?

    /// The longest reply text recorded: UNTextInputNotificationResponse sets none, a server must.
    static let replyLimit = 4096
    /// The longest action identifier.
    static let actionLimit = 256

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("feedback") { request, context -> Response in
            do {
                return try await self.record(request, caller: context.caller)
            } catch {
                self.metrics.receiptRefused(cause: Self.refusalCause(error))
                throw error
            }
        }
    }

    /// Why a receipt was refused, as `receipts_refused_total` counts it.
    static func refusalCause(_ error: any Error) -> String {
        switch (error as? ProviderError)?.code {
        case .notFound?: "unknown_delivery"
        case .unauthorized?, .forbidden?: "unauthorized"
        case .storage?: "storage"
        default: "invalid"
        }
    }

    /// Records one receipt and answers it.
    private func record(_ request: Request, caller: Caller) async throws -> Response {
        let app = try await caller.anyApp(request, store: self.store, needs: .devices)
        let input = try FeedbackInput(
            json: try JSONCoding.checkedTree(
                FeedbackInput.self, from: try await JSONCoding.body(of: request, limit: 16 << 10)))
        let now = self.now()
        let event = try Self.feedbackEvent(input, now: now)
        guard let id = DeliveryMessageID(input.apnsID, key: store.messageKey) else {
            throw ProviderError.field("apnsID", "\(input.apnsID) is not an apns-id this provider sent")
        }
        var claim = FeedbackClaim(message: id, token: nil, now: now)
        if case .device = caller {
            // The publishable key is in every copy of the app: only the device the push reached may report on it.
            guard let token = input.token else {
                throw ProviderError.field(
                    "token", "with the publishable key, send the device token the notification reached")
            }
            claim.token = token
        }
        // The store checks the claim (this app's delivery, its apns-id, its token) in the transaction that records
        // the report, with the other receipts that arrived meanwhile.
        guard let context = try await receipts.record(FeedbackReceipt(appID: app.app.id, claim: claim, event: event))
        else {
            throw ProviderError.notFound("no delivery with apns-id \(input.apnsID) for this app")
        }
        var answer = Answer(
            recorded: event.event, time: context.timeAdjusted == nil ? nil : context.recordedAt,
            timeAdjusted: context.timeAdjusted)
        metrics.receiptRecorded(event: event.event, repeated: context.isRepeat)
        if let tracer { await traceReceipt(event.event, apnsID: input.apnsID, context: context, tracer: tracer) }
        if context.isRepeat {
            answer.repeated = true
            answer.replaced = context.replacedReply ? "text" : nil
            if context.replacedReply { self.changes.notify() }
            return JSONCoding.response(json: answer.json, status: .accepted)
        }
        self.changes.notify()
        // A response of an app with a webhook was written to the outbox with it: the sender wakes for it.
        if context.webhookURL != nil, FeedbackEvent.responses.contains(event.event) {
            self.webhooks.signal.notify()
        }
        return JSONCoding.response(json: answer.json, status: .accepted)
    }

    /// A `herald receipt` span in the trace the notification was created in (so the trace runs from the API request
    /// to the device's display and its receipts), linked to the receipt's own request span.
    private func traceReceipt(_ event: String, apnsID: String, context: DeliveryContext, tracer: HeraldTracer) async {
        guard let stored = try? await store.notification(id: context.notificationID)?.traceContext else { return }
        let span = tracer.startSpan("herald receipt", parent: tracer.context(stored: stored), kind: .server)
        if let request = InstrumentationContext.current { span.addLink(SpanLink(context: request, attributes: [:])) }
        span.attributes["messaging.message.id"] = apnsID
        span.attributes["herald.receipt.event"] = event
        span.attributes["herald.receipt.repeated"] = context.isRepeat
        span.end()
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
