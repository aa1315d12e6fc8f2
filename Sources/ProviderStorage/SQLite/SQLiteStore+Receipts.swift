import Foundation
import GRDB

/// Receipts recorded a batch at a time: the deliveries they name read once, the batch decided in memory
/// (``ReceiptBatch``), its rows written in the same transaction.
extension SQLiteStore {
    package func recordFeedback(_ receipts: [FeedbackReceipt]) async throws(ProviderError)
        -> [Result<DeliveryContext?, ProviderError>]
    {
        guard !receipts.isEmpty else { return [] }
        return try await write { db in
            let deliveries = try Self.receiptDeliveries(Set(receipts.map(\.claim.message.deliveryID)), db)
            let batch = ReceiptBatch(receipts, deliveries: deliveries, key: self.messageKey)
            try Self.write(batch, db)
            return batch.answers
        }
    }

    /// The deliveries with these IDs as receipts read them, with their feedback rows.
    private static func receiptDeliveries(_ ids: Set<Int64>, _ db: Database) throws -> [Int64: ReceiptDelivery] {
        let delivery = try db.cachedStatement(
            sql: """
                SELECT n.id AS notification_id, n.app_id, n.created_at, d.token, v.user_id, a.webhook_url,
                    d.delivered_at, d.displayed_at, d.opened_at, d.dismissed_at, d.action, d.reply, d.outcome,
                    d.outcome_detail
                FROM deliveries d JOIN notifications n ON n.number = d.notification
                JOIN apps a ON a.id = n.app_id
                LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = token_text(d.token)
                WHERE d.id = ?
                """)
        let feedback = try db.cachedStatement(
            sql: "SELECT id, event, action, reply, at FROM feedback WHERE delivery_id = ? ORDER BY id")
        var found: [Int64: ReceiptDelivery] = [:]
        // Columns read by position, as the statements list them: by name, GRDB lowercases each name for every row.
        for id in ids {
            guard let row = try Row.fetchOne(delivery, arguments: [id]) else { continue }
            let notificationID: String = row[0]
            var stamps: [String: Date] = [:]
            for (offset, column) in ReceiptDelivery.stampColumns.enumerated() {
                if let at = row[6 + offset] as Double? { stamps[column] = Date(stored: at) }
            }
            found[id] = ReceiptDelivery(
                deliveryID: id, notificationID: notificationID, appID: row[1], queuedAt: Date(stored: row[2]),
                token: CompactText.tokenText(row[3]), userID: row[4], webhookURL: row[5], stamps: stamps,
                action: row[10], reply: row[11], outcome: row[12], outcomeDetail: row[13],
                feedback: try Row.fetchAll(feedback, arguments: [id]).map { row in
                    ReceiptDelivery.Feedback(
                        rowID: row[0], deliveryID: id, notificationID: notificationID, event: row[1], action: row[2],
                        reply: row[3], at: Date(stored: row[4]))
                })
        }
        return found
    }

    /// Writes what `batch` decided. A stage's time is only ever set where it was empty.
    private static func write(_ batch: ReceiptBatch, _ db: Database) throws {
        // At most one write an hour per app: whether its devices report at all (HeraldKit) is what it tells.
        let receiptSeen = try db.cachedStatement(
            sql: "UPDATE apps SET last_receipt_at = ? WHERE id = ? AND coalesce(last_receipt_at, 0) < ?")
        for (appID, at) in batch.latestReceipt {
            try receiptSeen.execute(arguments: [at.stored, appID, at.stored - 3600])
        }
        let insert = try db.cachedStatement(
            sql:
                "INSERT INTO feedback (delivery_id, notification_id, event, action, reply, at) VALUES (?, ?, ?, ?, ?, ?)"
        )
        for row in batch.inserted {
            try insert.execute(
                arguments: [row.deliveryID, row.notificationID, row.event, row.action, row.reply, row.at.stored])
        }
        for (id, reply) in batch.replacedReplies {
            try db.execute(sql: "UPDATE feedback SET reply = ? WHERE id = ?", arguments: [reply, id])
        }
        let update = try db.cachedStatement(
            sql: """
                UPDATE deliveries SET delivered_at = coalesce(delivered_at, ?), displayed_at = coalesce(displayed_at, ?),
                    opened_at = coalesce(opened_at, ?), dismissed_at = coalesce(dismissed_at, ?), action = ?, reply = ?,
                    outcome = ?, outcome_detail = ?
                WHERE id = ?
                """)
        for delivery in batch.changed {
            var arguments = StatementArguments(ReceiptDelivery.stampColumns.map { delivery.stamps[$0]?.stored })
            arguments += [
                delivery.action, delivery.reply, delivery.outcome, delivery.outcomeDetail, delivery.deliveryID,
            ]
            try update.execute(arguments: arguments)
        }
        try add(batch.counters, db)
        for webhook in batch.webhooks {
            try enqueueWebhook(db, appID: webhook.appID, url: webhook.url, body: webhook.body, at: webhook.at)
        }
    }
}
