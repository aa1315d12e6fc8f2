import Foundation
import PostgresNIO

/// Receipts recorded a batch at a time: the deliveries they name read and locked in one statement, their feedback
/// rows in another, the batch decided in memory (``ReceiptBatch``), and its rows written in one statement, all in one
/// transaction: five round trips for the whole batch, its three statements prepared (``ReceiptStatements``).
extension PostgresStore {
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
        for row in try await connection.rows(ReceiptStatements.Deliveries(ids: ids), logger) {
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
        for row in try await connection.rows(ReceiptStatements.Feedback(ids: Array(found.keys)), logger) {
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

    /// Writes what `batch` decided (``ReceiptStatements/Write``), then the rare replaced replies and webhook events.
    private static func write(_ batch: ReceiptBatch, _ connection: PostgresConnection, _ logger: Logger) async throws {
        _ = try await connection.rows(ReceiptStatements.Write(batch: batch), logger)
        for (id, reply) in batch.replacedReplies.sorted(by: { $0.key < $1.key }) {
            try await connection.rows("UPDATE feedback SET reply = \(reply) WHERE id = \(id)", logger)
        }
        for webhook in batch.webhooks {
            try await enqueueWebhook(
                connection, logger: logger, appID: webhook.appID, url: webhook.url, body: webhook.body, at: webhook.at)
        }
    }
}
