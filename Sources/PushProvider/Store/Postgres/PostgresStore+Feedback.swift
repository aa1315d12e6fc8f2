import Foundation
import PostgresNIO

extension PostgresStore {
    func recordFeedback(appID: String, deliveryID: Int64, notificationPrefix: String, _ event: FeedbackEvent)
        async throws(ProviderError) -> DeliveryContext?
    {
        let column: String? =
            switch event.event {
            case "delivered": "delivered_at"
            case "displayed": "displayed_at"
            case "opened", "action": "opened_at"
            case "dismissed": "dismissed_at"
            default: nil
            }
        return try await transaction { connection in
            guard
                let row = try await connection.rows(
                    """
                    SELECT d.notification_id, d.token, v.user_id, a.webhook_url
                    FROM deliveries d JOIN apps a ON a.id = d.app_id
                    LEFT JOIN devices v ON v.app_id = d.app_id AND v.token = d.token
                    WHERE d.id = \(deliveryID) AND substr(d.notification_id, 1, 23) = \(notificationPrefix)
                        AND d.app_id = \(appID)
                    FOR UPDATE OF d
                    """, logger
                ).first
            else { return nil }
            let (notificationID, token, userID, webhookURL) = try row.decode((String, String, String?, String?).self)
            try await connection.rows(
                """
                INSERT INTO feedback (delivery_id, notification_id, event, action, reply, at)
                VALUES (\(deliveryID), \(notificationID), \(event.event), \(event.action), \(event.reply), \(event.at))
                """, logger)
            if let column {
                var update = PostgresStatement()
                let (at, id) = (update.bind(event.at), update.bind(deliveryID))
                update.append("UPDATE deliveries SET \(column) = coalesce(\(column), \(at)) WHERE id = \(id)")
                try await connection.rows(update.query, logger)
            }
            if event.event == "action" || event.reply != nil {
                try await connection.rows(
                    """
                    UPDATE deliveries SET action = \(event.action), reply = coalesce(\(event.reply), reply)
                    WHERE id = \(deliveryID)
                    """, logger)
            }
            return DeliveryContext(
                deliveryID: deliveryID, notificationID: notificationID, appID: appID, token: token, userID: userID,
                webhookURL: webhookURL)
        }
    }
}
