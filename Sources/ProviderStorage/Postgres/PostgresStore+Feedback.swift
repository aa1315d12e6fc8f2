import Crypto
import Foundation
import PostgresNIO

extension PostgresStore {
    /// The token of the delivery `d`, as text.
    private static let deliveryToken = PostgresSchema.deliveryToken("d")

    package func responses(notificationID: String, after: Int64, limit: Int) async throws(ProviderError)
        -> [NotificationResponse]
    {
        let found = try await rows(
            """
            SELECT f.id, f.delivery_id, f.event, f.action, f.reply, f.at, \(unescaped: Self.deliveryToken) AS token, v.user_id
            FROM feedback f JOIN deliveries d ON d.id = f.delivery_id
            JOIN notifications n ON n.number = d.notification
            LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = \(unescaped: Self.deliveryToken)
            WHERE f.notification_id = \(notificationID) AND f.id > \(after)
                AND f.event IN ('opened', 'dismissed', 'action')
            ORDER BY f.id LIMIT \(limit)
            """)
        do {
            return try found.map { row in
                let (id, deliveryID, event, action, reply, at, token, userID) = try row.decode(
                    (Int64, Int64, String, String?, String?, Date, String, String?).self)
                return NotificationResponse(
                    id: id, event: event, action: action, text: reply,
                    apnsID: DeliveryMessageID(notificationID: notificationID, deliveryID: deliveryID, key: messageKey)
                        .string,
                    token: token, userID: userID, at: at)
            }
        } catch {
            throw Self.failure(error)
        }
    }
}
