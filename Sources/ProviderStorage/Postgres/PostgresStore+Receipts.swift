import Foundation
import PostgresNIO

/// Receipts recorded a batch at a time: the deliveries they name read and locked in one statement (in ID order, so
/// concurrent batches lock in the same order), the batch decided in memory (``ReceiptBatch``), and its rows written
/// in one statement, all in one transaction: five round trips for the whole batch.
extension PostgresStore {
    /// The token of the delivery `d`, as text.
    private static let deliveryToken = PostgresSchema.deliveryToken("d")

    package func recordFeedback(_ receipts: [FeedbackReceipt]) async throws(ProviderError)
        -> [Result<DeliveryContext?, ProviderError>]
    {
        guard !receipts.isEmpty else { return [] }
        let ids = Array(Set(receipts.map(\.claim.message.deliveryID))).sorted()
        return try await transaction { [logger, messageKey] connection in
            let deliveries = try await Self.receiptDeliveries(ids, connection, logger)
            let batch = ReceiptBatch(receipts, deliveries: deliveries, key: messageKey)
            try await Self.write(batch, connection, logger)
            return batch.answers
        }
    }

    /// The deliveries with these IDs as receipts read them, with their feedback rows, locked until the transaction
    /// ends.
    private static func receiptDeliveries(_ ids: [Int64], _ connection: PostgresConnection, _ logger: Logger)
        async throws -> [Int64: ReceiptDelivery]
    {
        var found: [Int64: ReceiptDelivery] = [:]
        for row in try await connection.rows(
            """
            SELECT d.id, n.id, n.app_id, n.created_at, \(unescaped: deliveryToken), v.user_id, a.webhook_url,
                d.delivered_at, d.displayed_at, d.opened_at, d.dismissed_at, d.action, d.reply, d.outcome,
                d.outcome_detail
            FROM deliveries d JOIN notifications n ON n.number = d.notification
            JOIN apps a ON a.id = n.app_id
            LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = \(unescaped: deliveryToken)
            WHERE d.id = ANY(\(ids)) ORDER BY d.id
            FOR UPDATE OF d
            """, logger)
        {
            let (
                id, notificationID, appID, queuedAt, token, userID, webhookURL, delivered, displayed, opened,
                dismissed, action, reply, outcome, detail
            ) = try row.decode(
                (
                    Int64, String, String, Date, String?, String?, String?, Date?, Date?, Date?, Date?, String?,
                    String?, String?, String?
                ).self)
            var stamps: [String: Date] = [:]
            for (column, at) in zip(ReceiptDelivery.stampColumns, [delivered, displayed, opened, dismissed]) {
                stamps[column] = at
            }
            found[id] = ReceiptDelivery(
                deliveryID: id, notificationID: notificationID, appID: appID, queuedAt: queuedAt, token: token ?? "",
                userID: userID, webhookURL: webhookURL, stamps: stamps, action: action, reply: reply,
                outcome: outcome, outcomeDetail: detail, feedback: [])
        }
        guard !found.isEmpty else { return found }
        for row in try await connection.rows(feedbackRows(of: Array(found.keys)), logger) {
            let (rowID, deliveryID, event, action, reply, at) = try row.decode(
                (Int64, Int64, String, String?, String?, Date).self)
            guard let delivery = found[deliveryID] else { continue }
            found[deliveryID]?.feedback.append(
                ReceiptDelivery.Feedback(
                    rowID: rowID, deliveryID: deliveryID, notificationID: delivery.notificationID, event: event,
                    action: action, reply: reply, at: at))
        }
        return found
    }

    /// The feedback rows of these deliveries, in row order. One index lookup a delivery, whatever the planner
    /// believes of the table: with `delivery_id = ANY(...)` it takes each listed ID for 0.5 % of the rows while
    /// `feedback` has no statistics yet (a table that fills during a storm) and reads the whole table instead (half
    /// the statements of a 100,000-device storm did, 4.9 ms each on average); `OFFSET 0` keeps the lookup a lookup
    /// (without it the planner turns the join into a hash join over the whole table again).
    static func feedbackRows(of deliveryIDs: [Int64]) -> PostgresQuery {
        """
        SELECT f.id, f.delivery_id, f.event, f.action, f.reply, f.at
        FROM unnest(\(deliveryIDs)::bigint[]) AS u(id)
        CROSS JOIN LATERAL (SELECT * FROM feedback WHERE delivery_id = u.id OFFSET 0) f
        ORDER BY f.id
        """
    }

    /// Writes what `batch` decided in one statement (each kind of row a data-modifying `WITH` part; an empty list is
    /// a part that writes nothing), then the rare replaced replies and webhook events. A stage's time is only ever
    /// set where it was empty; counters are taken in key order, so concurrent batches lock them in the same order.
    private static func write(_ batch: ReceiptBatch, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let counters = batch.counters.sorted { $0.key < $1.key }
        let seen = batch.latestReceipt.sorted { $0.key < $1.key }
        try await connection.rows(
            """
            WITH inserted AS (
                INSERT INTO feedback (delivery_id, notification_id, event, action, reply, at)
                SELECT delivery_id, notification_id, event, action, reply, to_timestamp(at)
                FROM jsonb_to_recordset(\(ReceiptRows.feedback(batch.inserted))::jsonb)
                    AS u(delivery_id bigint, notification_id text, event text, action text, reply text, at float8)
                RETURNING 1),
            changed AS (
                UPDATE deliveries d SET delivered_at = coalesce(d.delivered_at, to_timestamp(u.delivered_at)),
                    displayed_at = coalesce(d.displayed_at, to_timestamp(u.displayed_at)),
                    opened_at = coalesce(d.opened_at, to_timestamp(u.opened_at)),
                    dismissed_at = coalesce(d.dismissed_at, to_timestamp(u.dismissed_at)),
                    action = u.action, reply = u.reply, outcome = u.outcome, outcome_detail = u.outcome_detail
                FROM jsonb_to_recordset(\(ReceiptRows.deliveries(batch.changed))::jsonb)
                    AS u(id bigint, delivered_at float8, displayed_at float8, opened_at float8, dismissed_at float8,
                        action text, reply text, outcome text, outcome_detail text)
                WHERE d.id = u.id
                RETURNING 1),
            counted AS (
                INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                SELECT * FROM unnest(\(counters.map(\.key.notificationID))::text[],
                    \(counters.map(\.key.counter.rawValue))::text[], \(counters.map(\.key.reason))::text[],
                    \(counters.map { Int64($0.value) })::bigint[])
                ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + excluded.n
                RETURNING 1)
            -- At most one write an hour per app: whether its devices report at all (HeraldKit) is what it tells.
            UPDATE apps a SET last_receipt_at = to_timestamp(u.at)
            FROM unnest(\(seen.map(\.key))::text[], \(seen.map { $0.value.timeIntervalSince1970 })::float8[]) AS u(id, at)
            WHERE a.id = u.id AND (a.last_receipt_at IS NULL OR a.last_receipt_at < to_timestamp(u.at - 3600))
            """, logger)
        for (id, reply) in batch.replacedReplies.sorted(by: { $0.key < $1.key }) {
            try await connection.rows("UPDATE feedback SET reply = \(reply) WHERE id = \(id)", logger)
        }
        for webhook in batch.webhooks {
            try await enqueueWebhook(
                connection, logger: logger, appID: webhook.appID, url: webhook.url, body: webhook.body, at: webhook.at)
        }
    }
}
