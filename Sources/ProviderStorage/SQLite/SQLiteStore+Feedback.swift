import Crypto
import Foundation
import GRDB

extension SQLiteStore {
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
