import Crypto
import Foundation
import PostgresNIO

extension PostgresStore {
    /// The token of the delivery `d`, as text.
    private static let deliveryToken = PostgresSchema.deliveryToken("d")

    package func recordFeedback(appID: String, claim: FeedbackClaim, _ given: FeedbackEvent)
        async throws(ProviderError) -> DeliveryContext?
    {
        let deliveryID = claim.message.deliveryID
        return try await transaction { [logger, messageKey] connection in
            guard
                let row = try await connection.rows(
                    """
                    SELECT n.id, \(unescaped: Self.deliveryToken) AS token, v.user_id, a.webhook_url,
                        d.reply IS NULL, d.outcome, d.outcome_detail, n.created_at,
                        \(unescaped: FeedbackEvent.Stamp.all.map { "d.\($0.column) IS NULL" }.joined(separator: ", "))
                    FROM deliveries d JOIN notifications n ON n.number = d.notification
                    JOIN apps a ON a.id = n.app_id
                    LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = \(unescaped: Self.deliveryToken)
                    WHERE d.id = \(deliveryID) AND n.app_id = \(appID)
                    FOR UPDATE OF d
                    """, logger
                ).first
            else { return nil }
            let (notificationID, token, userID, webhookURL, replyWasEmpty, codes, details, queuedAt, d0, d1, d2, d3) =
                try row.decode(
                    (String, String?, String?, String?, Bool, String?, String?, Date, Bool, Bool, Bool, Bool).self)
            // The apns-id must be the one made for this delivery (the number alone is guessable), and with the
            // publishable key the delivery must have reached the token given.
            guard
                DeliveryMessageID(notificationID: notificationID, deliveryID: deliveryID, key: messageKey).string
                    == claim.message.string,
                claim.allows(token: token ?? "")
            else { return nil }
            var event = given
            let adjusted = event.keepInWindow(queuedAt: queuedAt, now: claim.now)
            // Whether each of `Stamp.all` (four, in its order) was empty.
            let wasNull = [d0, d1, d2, d3]
            let empty = event.stamps.filter { stamp in
                FeedbackEvent.Stamp.all.firstIndex(of: stamp).map { wasNull[$0] } ?? false
            }
            // At most one write an hour per app: whether its devices report at all (HeraldKit) is what it tells.
            try await connection.rows(
                """
                UPDATE apps SET last_receipt_at = \(event.at) WHERE id = \(appID)
                    AND (last_receipt_at IS NULL OR last_receipt_at < \(event.at.addingTimeInterval(-3600)))
                """, logger)
            var context = DeliveryContext(
                deliveryID: deliveryID, notificationID: notificationID, appID: appID, token: token ?? "",
                userID: userID, webhookURL: webhookURL)
            context.recordedAt = event.at
            context.timeAdjusted = adjusted
            if let outcome = event.outcome {
                guard let (codes, details) = event.addingOutcome(outcome, to: codes, details: details) else {
                    return context
                }
                try await connection.rows(
                    "UPDATE deliveries SET outcome = \(codes), outcome_detail = \(details) WHERE id = \(deliveryID)",
                    logger)
                try await connection.rows(
                    """
                    INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                    VALUES (\(notificationID), \(NotificationCounter.outcome.rawValue), \(outcome.rawValue), 1)
                    ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + 1
                    """, logger)
                return context
            }
            // A receipt is a fact: one of each kind per delivery (one per action identifier), whatever its time.
            if let earlier = try await connection.rows(
                """
                SELECT id, reply FROM feedback WHERE delivery_id = \(deliveryID) AND event = \(event.event)
                    AND action IS NOT DISTINCT FROM \(event.action) LIMIT 1
                """, logger
            ).first {
                let (id, earlierReply) = try earlier.decode((Int64, String?).self)
                var again = context
                again.isRepeat = true
                if let reply = event.reply, reply != earlierReply {
                    // A reply sent again with another text: the text is replaced, nothing is counted again.
                    try await connection.rows("UPDATE feedback SET reply = \(reply) WHERE id = \(id)", logger)
                    try await connection.rows(
                        "UPDATE deliveries SET reply = \(reply) WHERE id = \(deliveryID)", logger)
                    if replyWasEmpty {
                        try await connection.rows(
                            """
                            INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                            VALUES (\(notificationID), \(NotificationCounter.replies.rawValue), '', 1)
                            ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + 1
                            """, logger)
                    }
                    again.replacedReply = true
                }
                return again
            }
            if FeedbackEvent.responses.contains(event.event),
                let answered = try await connection.rows(
                    """
                    SELECT event, action FROM feedback
                    WHERE delivery_id = \(deliveryID) AND event IN ('opened', 'dismissed', 'action') LIMIT 1
                    """, logger
                ).first
            {
                let (earlier, action) = try answered.decode((String, String?).self)
                throw FeedbackEvent.refuseSecondResponse(earlier: earlier, action: action)
            }
            try await connection.rows(
                """
                INSERT INTO feedback (delivery_id, notification_id, event, action, reply, at)
                VALUES (\(deliveryID), \(notificationID), \(event.event), \(event.action), \(event.reply), \(event.at))
                """, logger)
            for stamp in empty {
                try await connection.rows(
                    "UPDATE deliveries SET \(unescaped: stamp.column) = \(event.at) WHERE id = \(deliveryID)", logger)
            }
            for counter in event.counters(empty: empty, replyWasEmpty: replyWasEmpty) {
                try await connection.rows(
                    """
                    INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                    VALUES (\(notificationID), \(counter.rawValue), '', 1)
                    ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + 1
                    """, logger)
            }
            if event.event == "action" || event.reply != nil {
                try await connection.rows(
                    """
                    UPDATE deliveries SET action = \(event.action), reply = coalesce(\(event.reply), reply)
                    WHERE id = \(deliveryID)
                    """, logger)
            }
            if let url = context.webhookURL, let body = event.webhookBody(context, key: self.messageKey) {
                try await Self.enqueueWebhook(
                    connection, logger: logger, appID: appID, url: url, body: body, at: event.at)
            }
            return context
        }
    }

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
