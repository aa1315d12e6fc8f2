import Foundation
import GRDB

extension SQLiteStore {
    func recordFeedback(appID: String, deliveryID: Int64, notificationPrefix: String, _ event: FeedbackEvent)
        async throws(ProviderError) -> DeliveryContext?
    {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT d.id, d.notification_id, d.app_id, d.token, v.user_id, a.webhook_url, d.delivered_at,
                            d.displayed_at, d.opened_at, d.dismissed_at, d.reply
                        FROM deliveries d JOIN apps a ON a.id = d.app_id
                        LEFT JOIN devices v ON v.app_id = d.app_id AND v.token = d.token
                        WHERE d.id = ? AND substr(d.notification_id, 1, 23) = ? AND d.app_id = ?
                        """, arguments: [deliveryID, notificationPrefix, appID])
            else { return nil }
            let notificationID: String = row["notification_id"]
            try db.execute(
                sql:
                    "INSERT INTO feedback (delivery_id, notification_id, event, action, reply, at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [deliveryID, notificationID, event.event, event.action, event.reply, event.at.stored])
            let stampWasEmpty = event.stamp.map { (row[$0.column] as Double?) == nil } ?? false
            if let stamp = event.stamp, stampWasEmpty {
                try db.execute(
                    sql: "UPDATE deliveries SET \(stamp.column) = ? WHERE id = ?",
                    arguments: [event.at.stored, deliveryID])
            }
            let moved = event.counters(stampWasEmpty: stampWasEmpty, replyWasEmpty: (row["reply"] as String?) == nil)
            try Self.add(
                Dictionary(moved.map { (CounterKey(notificationID, $0), 1) }, uniquingKeysWith: +), db)
            if event.event == "action" || event.reply != nil {
                try db.execute(
                    sql: "UPDATE deliveries SET action = ?, reply = coalesce(?, reply) WHERE id = ?",
                    arguments: [event.action, event.reply, deliveryID])
            }
            return DeliveryContext(
                deliveryID: deliveryID, notificationID: notificationID, appID: row["app_id"], token: row["token"],
                userID: row["user_id"], webhookURL: row["webhook_url"])
        }
    }
}
