import Crypto
import Foundation
import GRDB

extension SQLiteStore {
    package func recordFeedback(appID: String, claim: FeedbackClaim, _ given: FeedbackEvent)
        async throws(ProviderError) -> DeliveryContext?
    {
        let deliveryID = claim.message.deliveryID
        return try await write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT d.id, n.id AS notification_id, n.app_id, n.created_at, d.token, v.user_id, a.webhook_url,
                            d.delivered_at, d.displayed_at, d.opened_at, d.dismissed_at, d.reply, d.outcome,
                            d.outcome_detail
                        FROM deliveries d JOIN notifications n ON n.number = d.notification
                        JOIN apps a ON a.id = n.app_id
                        LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = token_text(d.token)
                        WHERE d.id = ? AND n.app_id = ?
                        """, arguments: [deliveryID, appID])
            else { return nil }
            let notificationID: String = row["notification_id"]
            let token = CompactText.tokenText(row["token"])
            // The apns-id must be the one made for this delivery (the number alone is guessable), and with the
            // publishable key the delivery must have reached the token given.
            guard
                DeliveryMessageID(notificationID: notificationID, deliveryID: deliveryID, key: self.messageKey).string
                    == claim.message.string,
                claim.allows(token: token)
            else { return nil }
            var event = given
            let adjusted = event.keepInWindow(queuedAt: Date(stored: row["created_at"]), now: claim.now)
            // At most one write an hour per app: whether its devices report at all (HeraldKit) is what it tells.
            try db.execute(
                sql: "UPDATE apps SET last_receipt_at = ? WHERE id = ? AND coalesce(last_receipt_at, 0) < ?",
                arguments: [event.at.stored, appID, event.at.stored - 3600])
            var context = DeliveryContext(
                deliveryID: deliveryID, notificationID: notificationID, appID: row["app_id"], token: token,
                userID: row["user_id"], webhookURL: row["webhook_url"])
            context.recordedAt = event.at
            context.timeAdjusted = adjusted
            if let outcome = event.outcome {
                guard
                    let (codes, details) = event.addingOutcome(
                        outcome, to: row["outcome"], details: row["outcome_detail"])
                else { return context }
                try db.execute(
                    sql: "UPDATE deliveries SET outcome = ?, outcome_detail = ? WHERE id = ?",
                    arguments: [codes, details, deliveryID])
                try Self.add([CounterKey(notificationID, .outcome, outcome.rawValue): 1], db)
                return context
            }
            // A receipt is a fact: one of each kind per delivery (one per action identifier), whatever its time.
            if let earlier = try Row.fetchOne(
                db,
                sql: "SELECT id, reply FROM feedback WHERE delivery_id = ? AND event = ? AND action IS ? LIMIT 1",
                arguments: [deliveryID, event.event, event.action])
            {
                var again = context
                again.isRepeat = true
                if let reply = event.reply, reply != (earlier["reply"] as String?) {
                    // A reply sent again with another text: the text is replaced, nothing is counted again.
                    try db.execute(
                        sql: "UPDATE feedback SET reply = ? WHERE id = ?", arguments: [reply, earlier["id"] as Int64])
                    try db.execute(
                        sql: "UPDATE deliveries SET reply = ? WHERE id = ?", arguments: [reply, deliveryID])
                    if (row["reply"] as String?) == nil { try Self.add([CounterKey(notificationID, .replies): 1], db) }
                    again.replacedReply = true
                }
                return again
            }
            if FeedbackEvent.responses.contains(event.event),
                let answered = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT event, action FROM feedback
                        WHERE delivery_id = ? AND event IN ('opened', 'dismissed', 'action') LIMIT 1
                        """, arguments: [deliveryID])
            {
                throw FeedbackEvent.refuseSecondResponse(earlier: answered["event"], action: answered["action"])
            }
            try db.execute(
                sql:
                    "INSERT INTO feedback (delivery_id, notification_id, event, action, reply, at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [deliveryID, notificationID, event.event, event.action, event.reply, event.at.stored])
            let empty = event.stamps.filter { (row[$0.column] as Double?) == nil }
            for stamp in empty {
                try db.execute(
                    sql: "UPDATE deliveries SET \(stamp.column) = ? WHERE id = ?",
                    arguments: [event.at.stored, deliveryID])
            }
            let moved = event.counters(empty: empty, replyWasEmpty: (row["reply"] as String?) == nil)
            try Self.add(
                Dictionary(moved.map { (CounterKey(notificationID, $0), 1) }, uniquingKeysWith: +), db)
            if event.event == "action" || event.reply != nil {
                try db.execute(
                    sql: "UPDATE deliveries SET action = ?, reply = coalesce(?, reply) WHERE id = ?",
                    arguments: [event.action, event.reply, deliveryID])
            }
            if let url = context.webhookURL, let body = event.webhookBody(context, key: self.messageKey) {
                try Self.enqueueWebhook(db, appID: appID, url: url, body: body, at: event.at)
            }
            return context
        }
    }

    package func responses(notificationID: String, after: Int64, limit: Int) async throws(ProviderError)
        -> [NotificationResponse]
    {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT f.id, f.delivery_id, f.event, f.action, f.reply, f.at, d.token, v.user_id
                    FROM feedback f INDEXED BY feedback_responses
                    JOIN deliveries d ON d.id = f.delivery_id
                    JOIN notifications n ON n.number = d.notification
                    LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = token_text(d.token)
                    WHERE f.notification_id = ? AND f.id > ? AND f.event IN ('opened', 'dismissed', 'action')
                    ORDER BY f.id LIMIT ?
                    """, arguments: [notificationID, after, limit]
            ).map { row in
                NotificationResponse(
                    id: row["id"], event: row["event"], action: row["action"], text: row["reply"],
                    apnsID: DeliveryMessageID(
                        notificationID: notificationID, deliveryID: row["delivery_id"], key: self.messageKey
                    ).string,
                    token: CompactText.tokenText(row["token"]), userID: row["user_id"], at: Date(stored: row["at"]))
            }
        }
    }
}
