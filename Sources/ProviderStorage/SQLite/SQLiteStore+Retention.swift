package import Foundation
import GRDB

extension SQLiteStore {
    package func unprunedNotifications(appID: String, createdBefore: Date, limit: Int) async throws(ProviderError)
        -> [String]
    {
        try await read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM notifications INDEXED BY notifications_unpruned
                    WHERE app_id = ? AND created_at < ? AND pruned_at IS NULL
                        AND (daily_at IS NULL OR cancelled_at < ?)
                    ORDER BY created_at LIMIT ?
                    """, arguments: [appID, createdBefore.stored, createdBefore.stored, limit])
        }
    }

    package func pruneDeliveries(notificationID: String, occurrenceBefore: String?, limit: Int, at: Date)
        async throws(ProviderError) -> Int
    {
        try await write { db in
            let finished =
                "state IN (\(DeliveryState.accepted.sql), \(DeliveryState.rejected.sql), \(DeliveryState.cancelled.sql))"
            let ids = try Int64.fetchAll(
                db,
                sql: """
                    DELETE FROM deliveries WHERE id IN (
                        SELECT id FROM deliveries WHERE \(Self.ofNotification) AND \(finished)
                            \(occurrenceBefore == nil ? "" : "AND occurrence < ?")
                        ORDER BY id LIMIT ?)
                    RETURNING id
                    """,
                arguments: StatementArguments(
                    [notificationID] + (occurrenceBefore.map { [$0] } ?? []) + [limit]
                        as [(any DatabaseValueConvertible)?]))
            if let first = ids.min(), let last = ids.max() {
                let reports = try db.cachedStatement(sql: "DELETE FROM feedback WHERE delivery_id = ?")
                for id in ids { try reports.execute(arguments: [id]) }
                try db.execute(
                    sql: """
                        UPDATE notifications SET pruned_first = min(coalesce(pruned_first, ?), ?),
                            pruned_last = max(coalesce(pruned_last, ?), ?),
                            pruned_at = CASE WHEN daily_at IS NULL THEN pruned_at ELSE ? END
                        WHERE id = ?
                        """, arguments: [first, first, last, last, at.stored, notificationID])
            }
            if occurrenceBefore == nil, ids.count < limit {
                try db.execute(
                    sql: """
                        UPDATE notifications SET pruned_at = ?
                        WHERE id = ? AND NOT EXISTS (SELECT 1 FROM deliveries WHERE \(Self.ofNotification))
                        """, arguments: [at.stored, notificationID, notificationID])
            }
            return ids.count
        }
    }

    package func pruneReports(appID: String, events: [String], before: Date, limit: Int) async throws(ProviderError)
        -> Int
    {
        guard !events.isEmpty else { return 0 }
        let marks = Array(repeating: "?", count: events.count).joined(separator: ", ")
        return try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM feedback WHERE id IN (
                        SELECT f.id FROM feedback f INDEXED BY feedback_at JOIN notifications n ON n.id = f.notification_id
                        WHERE f.at < ? AND n.app_id = ? AND f.event IN (\(marks))
                        ORDER BY f.at LIMIT ?)
                    """,
                arguments: StatementArguments(
                    [before.stored, appID] as [(any DatabaseValueConvertible)?]
                        + events.map { $0 as (any DatabaseValueConvertible)? } + [limit]))
            return db.changesCount
        }
    }

    package func deleteNotifications(appID: String, createdBefore: Date, limit: Int) async throws(ProviderError)
        -> Int
    {
        try await write { db in
            let ids = try String.fetchAll(
                db,
                sql: """
                    DELETE FROM notifications WHERE id IN (
                        SELECT id FROM notifications
                        WHERE app_id = ? AND created_at < ? AND pruned_at IS NOT NULL
                            AND (daily_at IS NULL OR cancelled_at < ?)
                        ORDER BY created_at LIMIT ?)
                    RETURNING id
                    """, arguments: [appID, createdBefore.stored, createdBefore.stored, limit])
            let counters = try db.cachedStatement(sql: "DELETE FROM notification_counters WHERE notification_id = ?")
            for id in ids { try counters.execute(arguments: [id]) }
            return ids.count
        }
    }

    package func prunedNotifications(covering deliveryID: Int64) async throws(ProviderError) -> [PrunedNotification] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, app_id, pruned_at FROM notifications INDEXED BY notifications_pruned
                    WHERE pruned_last >= ? AND pruned_first <= ? AND pruned_at IS NOT NULL
                    ORDER BY pruned_last LIMIT 100
                    """, arguments: [deliveryID, deliveryID]
            ).map { row in
                PrunedNotification(id: row["id"], appID: row["app_id"], prunedAt: Date(stored: row["pruned_at"]))
            }
        }
    }
}
