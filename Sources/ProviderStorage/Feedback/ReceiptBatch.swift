package import Foundation

/// One receipt a device reported: for app `appID`, what it claims (``FeedbackClaim``) and what it says happened.
package struct FeedbackReceipt: Sendable {
    package var appID: String
    package var claim: FeedbackClaim
    package var event: FeedbackEvent

    package init(appID: String, claim: FeedbackClaim, event: FeedbackEvent) {
        self.appID = appID
        self.claim = claim
        self.event = event
    }
}

/// What a batch of receipts does to the database, decided in memory from the deliveries they name as the database
/// holds them (read once for the whole batch, their rows locked): each receipt's answer, and the rows to write in one
/// transaction. Receipts are taken in order, each seeing what the ones before it did, so a batch records exactly
/// what the same receipts recorded one transaction each would (one receipt of each kind per delivery, one answer per
/// delivery, a reply's text replaced, each stage counted once).
package struct ReceiptBatch {
    /// Each receipt's answer, in the order given: its delivery's context, `nil` when its claim does not hold (no such
    /// delivery of that app, not its apns-id, not the token it reached), or why it was refused.
    package private(set) var answers: [Result<DeliveryContext?, ProviderError>] = []
    /// Feedback rows to insert.
    package private(set) var inserted: [ReceiptDelivery.Feedback] = []
    /// Replies to replace in feedback rows that were in the database before the batch: row ID → text.
    package private(set) var replacedReplies: [Int64: String] = [:]
    /// The deliveries whose row changed, as they are to be written.
    package private(set) var changed: [ReceiptDelivery] = []
    /// What to add to the notifications' counters.
    package private(set) var counters: [CounterKey: Int] = [:]
    /// Per app, the latest time one of its devices reported (the apps' `last_receipt_at`, written at most hourly).
    package private(set) var latestReceipt: [String: Date] = [:]
    /// Webhook events to put in the outbox, in the order the responses came.
    package private(set) var webhooks: [(appID: String, url: String, body: WebhookEventBody, at: Date)] = []

    /// Decides the batch. `deliveries` holds every delivery the receipts name that exists (by delivery ID, with its
    /// feedback rows); `key` makes the apns-ids to check the claims against.
    package init(_ receipts: [FeedbackReceipt], deliveries: [Int64: ReceiptDelivery], key: MessageKey) {
        var deliveries = deliveries
        var changedIDs: [Int64] = []
        for receipt in receipts {
            let id = receipt.claim.message.deliveryID
            guard var delivery = deliveries[id], delivery.appID == receipt.appID,
                receipt.claim.message.isMade(forNotification: delivery.notificationID, key: key),
                receipt.claim.allows(token: delivery.token)
            else {
                answers.append(.success(nil))
                continue
            }
            let before = delivery
            answers.append(record(receipt, on: &delivery, key: key))
            if delivery != before {
                deliveries[id] = delivery
                if !changedIDs.contains(id) { changedIDs.append(id) }
            }
        }
        changed = changedIDs.compactMap { deliveries[$0] }
    }

    /// Records one receipt whose claim holds on `delivery` (changed in place) and answers it.
    private mutating func record(_ receipt: FeedbackReceipt, on delivery: inout ReceiptDelivery, key: MessageKey)
        -> Result<DeliveryContext?, ProviderError>
    {
        var event = receipt.event
        let adjusted = event.keepInWindow(queuedAt: delivery.queuedAt, now: receipt.claim.now)
        latestReceipt[receipt.appID] = max(latestReceipt[receipt.appID] ?? .distantPast, event.at)
        var context = delivery.context
        context.recordedAt = event.at
        context.timeAdjusted = adjusted
        if let outcome = event.outcome {
            if let (codes, details) = event.addingOutcome(
                outcome, to: delivery.outcome, details: delivery.outcomeDetail)
            {
                delivery.outcome = codes
                delivery.outcomeDetail = details
                counters[CounterKey(delivery.notificationID, .outcome, outcome.rawValue), default: 0] += 1
            }
            return .success(context)
        }
        // A receipt is a fact: one of each kind per delivery (one per action identifier), whatever its time.
        if let earlier = delivery.feedback.firstIndex(where: { $0.event == event.event && $0.action == event.action }) {
            context.isRepeat = true
            if let reply = event.reply, reply != delivery.feedback[earlier].reply {
                // A reply sent again with another text: the text is replaced, nothing is counted again.
                delivery.feedback[earlier].reply = reply
                if let row = delivery.feedback[earlier].rowID {
                    replacedReplies[row] = reply
                } else if let pending = inserted.lastIndex(where: {
                    $0.rowID == nil && $0.matches(delivery.feedback[earlier])
                }) {
                    inserted[pending].reply = reply
                }
                if delivery.reply == nil { counters[CounterKey(delivery.notificationID, .replies), default: 0] += 1 }
                delivery.reply = reply
                context.replacedReply = true
            }
            return .success(context)
        }
        if FeedbackEvent.responses.contains(event.event),
            let answered = delivery.feedback.first(where: { FeedbackEvent.responses.contains($0.event) })
        {
            return .failure(FeedbackEvent.refuseSecondResponse(earlier: answered.event, action: answered.action))
        }
        let row = ReceiptDelivery.Feedback(
            rowID: nil, deliveryID: delivery.deliveryID, notificationID: delivery.notificationID, event: event.event,
            action: event.action, reply: event.reply, at: event.at)
        inserted.append(row)
        delivery.feedback.append(row)
        let empty = event.stamps.filter { delivery.stamps[$0.column] == nil }
        for stamp in empty { delivery.stamps[stamp.column] = event.at }
        for counter in event.counters(empty: empty, replyWasEmpty: delivery.reply == nil) {
            counters[CounterKey(delivery.notificationID, counter), default: 0] += 1
        }
        if event.event == "action" || event.reply != nil {
            delivery.action = event.action
            delivery.reply = event.reply ?? delivery.reply
        }
        if let url = context.webhookURL, let body = event.webhookBody(context, key: key) {
            webhooks.append((receipt.appID, url, body, event.at))
        }
        return .success(context)
    }
}

/// One counter of one notification.
package struct CounterKey: Hashable, Comparable {
    package var notificationID: String
    package var counter: NotificationCounter
    package var reason: String

    package init(_ notificationID: String, _ counter: NotificationCounter, _ reason: String = "") {
        self.notificationID = notificationID
        self.counter = counter
        self.reason = reason
    }

    /// Key order: concurrent writers update counter rows in the same order.
    package static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.notificationID, lhs.counter.rawValue, lhs.reason) < (rhs.notificationID, rhs.counter.rawValue, rhs.reason)
    }
}
