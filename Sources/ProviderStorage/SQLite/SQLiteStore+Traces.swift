import Crypto
import Foundation
import GRDB

extension SQLiteStore {
    package func delivery(id: Int64) async throws(ProviderError) -> DeliveryTrace? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: Self.traceQuery + " WHERE d.id = ?", arguments: [id]) else {
                return nil
            }
            var trace = try Self.trace(from: row, key: self.messageKey)
            trace.reports = try Row.fetchAll(
                db,
                sql: """
                    SELECT event, action, reply, at FROM feedback
                    WHERE notification_id = ? AND delivery_id = ? ORDER BY at, id
                    """, arguments: [trace.notificationID, id]
            ).map { row in
                DeliveryTrace.Report(
                    event: row["event"], action: row["action"], reply: row["reply"], at: Date(stored: row["at"]))
            }
            return trace
        }
    }

    package func deliveries(notificationID: String, after: Int64, limit: Int) async throws(ProviderError)
        -> [DeliveryTrace]
    {
        try await read { db in
            try Row.fetchAll(
                db, sql: Self.traceQuery + " WHERE d.\(Self.ofNotification) AND d.id > ? ORDER BY d.id LIMIT ?",
                arguments: [notificationID, after, limit]
            ).map { row in try Self.trace(from: row, key: self.messageKey) }
        }
    }

    private static let traceQuery = """
        SELECT d.*, n.id AS notification_id, n.app_id AS app_id, n.created_at AS queued_at, n.expiration AS expiration,
            v.deactivated_at AS token_retired_at, v.deactivation_reason AS token_retired_because
        FROM deliveries d JOIN notifications n ON n.number = d.notification
        LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = token_text(d.token) AND v.active = 0
        """

    private static func trace(from row: Row, key: MessageKey) throws -> DeliveryTrace {
        let notificationID: String = row["notification_id"]
        func date(_ column: String) -> Date? { (row[column] as Double?).map(Date.init(stored:)) }
        return DeliveryTrace(
            apnsID: DeliveryMessageID(notificationID: notificationID, deliveryID: row["id"], key: key).string,
            notificationID: notificationID, appID: row["app_id"], token: CompactText.tokenText(row["token"]),
            channelID: row["channel_id"],
            state: try DeliveryState(stored: row["state"]),
            attempts: row["attempts"], queuedAt: Date(stored: row["queued_at"]),
            notBefore: Date(stored: row["not_before"]), expiration: row["expiration"], leaseUntil: date("lease_until"),
            status: row["status"],
            reason: row["reason"], apnsUniqueID: CompactText.uniqueIDText(row["apns_unique_id"]),
            answeredAt: date("result_at"),
            deliveredAt: date("delivered_at"), displayedAt: date("displayed_at"), openedAt: date("opened_at"),
            dismissedAt: date("dismissed_at"), action: row["action"], reply: row["reply"], reports: [],
            outcomes: (row["outcome"] as String?).map { $0.split(separator: ",").map(String.init) } ?? [],
            outcomeDetail: row["outcome_detail"], tokenRetiredAt: date("token_retired_at"),
            tokenRetiredBecause: row["token_retired_because"])
    }
}
