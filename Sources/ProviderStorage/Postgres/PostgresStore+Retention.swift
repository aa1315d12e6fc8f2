package import Foundation
import PostgresNIO

extension PostgresStore {
    package func unprunedNotifications(appID: String, createdBefore: Date, limit: Int) async throws(ProviderError)
        -> [String]
    {
        do {
            return try await rows(
                """
                SELECT id FROM notifications
                WHERE app_id = \(appID) AND created_at < \(createdBefore) AND pruned_at IS NULL
                    AND (daily_at IS NULL OR cancelled_at < \(createdBefore))
                ORDER BY created_at LIMIT \(limit)
                """
            ).map { try $0.decode(String.self) }
        } catch let error as ProviderError {
            throw error
        } catch {
            throw Self.failure(error)
        }
    }

    package func pruneDeliveries(notificationID: String, occurrenceBefore: String?, limit: Int, at: Date)
        async throws(ProviderError) -> Int
    {
        let finished = [DeliveryState.accepted, .rejected, .cancelled].map(\.rawValue)
        let oneOff = occurrenceBefore == nil
        return try await transaction { [logger] connection in
            let rows = try await connection.rows(
                """
                WITH gone AS (
                    DELETE FROM deliveries WHERE id = ANY(ARRAY(
                        SELECT d.id FROM deliveries d JOIN delivery_results r ON r.delivery_id = d.id
                        WHERE d.notification = (SELECT number FROM notifications WHERE id = \(notificationID))
                            AND r.state = ANY(\(finished)) AND (\(oneOff) OR d.occurrence < \(occurrenceBefore ?? ""))
                        ORDER BY d.id LIMIT \(limit)))
                    RETURNING id),
                results AS (DELETE FROM delivery_results r USING gone WHERE r.delivery_id = gone.id),
                reports AS (DELETE FROM feedback WHERE delivery_id IN (SELECT id FROM gone))
                SELECT count(*), min(id), max(id) FROM gone
                """, logger)
            let (count, first, last) = try rows.first?.decode((Int, Int64?, Int64?).self) ?? (0, nil, nil)
            if let first, let last {
                try await connection.rows(
                    """
                    UPDATE notifications SET pruned_first = least(coalesce(pruned_first, \(first)), \(first)),
                        pruned_last = greatest(coalesce(pruned_last, \(last)), \(last)),
                        pruned_at = CASE WHEN daily_at IS NULL THEN pruned_at ELSE \(at) END
                    WHERE id = \(notificationID)
                    """, logger)
            }
            if oneOff, count < limit {
                try await connection.rows(
                    """
                    UPDATE notifications SET pruned_at = \(at)
                    WHERE id = \(notificationID)
                        AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.notification = notifications.number)
                    """, logger)
            }
            return count
        }
    }

    package func pruneReports(appID: String, events: [String], before: Date, limit: Int) async throws(ProviderError)
        -> Int
    {
        guard !events.isEmpty else { return 0 }
        return try await count(
            """
            WITH gone AS (
                DELETE FROM feedback WHERE id = ANY(ARRAY(
                    SELECT f.id FROM feedback f JOIN notifications n ON n.id = f.notification_id
                    WHERE f.at < \(before) AND n.app_id = \(appID) AND f.event = ANY(\(events))
                    ORDER BY f.at LIMIT \(limit)))
                RETURNING 1)
            SELECT count(*) FROM gone
            """)
    }

    package func deleteNotifications(appID: String, createdBefore: Date, limit: Int) async throws(ProviderError)
        -> Int
    {
        try await count(
            """
            WITH gone AS (
                DELETE FROM notifications WHERE id = ANY(ARRAY(
                    SELECT id FROM notifications
                    WHERE app_id = \(appID) AND created_at < \(createdBefore) AND pruned_at IS NOT NULL
                        AND (daily_at IS NULL OR cancelled_at < \(createdBefore))
                    ORDER BY created_at LIMIT \(limit)))
                RETURNING id),
            counters AS (DELETE FROM notification_counters WHERE notification_id IN (SELECT id FROM gone))
            SELECT count(*) FROM gone
            """)
    }

    package func prunedNotifications(covering deliveryID: Int64) async throws(ProviderError) -> [PrunedNotification] {
        do {
            return try await rows(
                """
                SELECT id, app_id, pruned_at FROM notifications
                WHERE pruned_last >= \(deliveryID) AND pruned_first <= \(deliveryID) AND pruned_at IS NOT NULL
                ORDER BY pruned_last LIMIT 100
                """
            ).map { row in
                let (id, appID, prunedAt) = try row.decode((String, String, Date).self)
                return PrunedNotification(id: id, appID: appID, prunedAt: prunedAt)
            }
        } catch let error as ProviderError {
            throw error
        } catch {
            throw Self.failure(error)
        }
    }
}
