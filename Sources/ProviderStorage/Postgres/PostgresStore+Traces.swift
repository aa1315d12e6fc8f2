import Crypto
import Foundation
import PostgresNIO

extension PostgresStore {
    /// A delivery's trace as its readers select it: the delivery with its notification, and its device's retirement.
    private static let traceRows = """
        SELECT d.*, n.id AS notification_id, n.app_id AS app_id, n.created_at AS queued_at,
            n.expiration AS expiration, v.deactivated_at AS token_retired_at,
            v.deactivation_reason AS token_retired_because
        FROM delivery_view d JOIN notifications n ON n.number = d.notification
        LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = d.token AND NOT v.active
        """

    package func delivery(id: Int64) async throws(ProviderError) -> DeliveryTrace? {
        let found = try await rows(
            """
            \(unescaped: Self.traceRows)
            WHERE d.id = \(id)
            """)
        guard let row = found.first else { return nil }
        var trace: DeliveryTrace
        do {
            trace = try Self.trace(from: row.makeRandomAccess(), key: messageKey)
        } catch {
            throw Self.failure(error)
        }
        let reports = try await rows(
            """
            SELECT event, action, reply, at FROM feedback
            WHERE notification_id = \(trace.notificationID) AND delivery_id = \(id) ORDER BY at, id
            """)
        do {
            trace.reports = try reports.map { row in
                let (event, action, reply, at) = try row.decode((String, String?, String?, Date).self)
                return DeliveryTrace.Report(event: event, action: action, reply: reply, at: at)
            }
            return trace
        } catch {
            throw Self.failure(error)
        }
    }

    package func deliveries(notificationID: String, after: Int64, limit: Int) async throws(ProviderError)
        -> [DeliveryTrace]
    {
        let found = try await rows(
            """
            \(unescaped: Self.traceRows)
            WHERE d.notification = (SELECT number FROM notifications WHERE id = \(notificationID)) AND d.id > \(after)
            ORDER BY d.id LIMIT \(limit)
            """)
        do {
            return try found.map { try Self.trace(from: $0.makeRandomAccess(), key: messageKey) }
        } catch {
            throw Self.failure(error)
        }
    }

    private static func trace(from row: PostgresRandomAccessRow, key: MessageKey) throws -> DeliveryTrace {
        let notificationID: String = try row.column("notification_id")
        return DeliveryTrace(
            apnsID: DeliveryMessageID(notificationID: notificationID, deliveryID: try row.column("id"), key: key)
                .string,
            notificationID: notificationID, appID: try row.column("app_id"), token: try row.column("token"),
            channelID: try row.column("channel_id"),
            state: try DeliveryState(stored: try row.column("state")),
            attempts: Int(try row.column("attempts", as: Int64.self)),
            queuedAt: try row.column("queued_at"), notBefore: try row.column("not_before"),
            expiration: try row.column("expiration", as: Int64?.self).map { Int(clamping: $0) },
            leaseUntil: try row.column("lease_until"), status: try row.column("status", as: Int64?.self).map(Int.init),
            reason: try row.column("reason"), apnsUniqueID: try row.column("apns_unique_id"),
            answeredAt: try row.column("result_at"), deliveredAt: try row.column("delivered_at"),
            displayedAt: try row.column("displayed_at"), openedAt: try row.column("opened_at"),
            dismissedAt: try row.column("dismissed_at"), action: try row.column("action"),
            reply: try row.column("reply"), reports: [],
            outcomes: (try row.column("outcome", as: String?.self)).map { $0.split(separator: ",").map(String.init) }
                ?? [],
            outcomeDetail: try row.column("outcome_detail"), tokenRetiredAt: try row.column("token_retired_at"),
            tokenRetiredBecause: try row.column("token_retired_because"))
    }
}
