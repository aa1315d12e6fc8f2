package import Foundation
import PostgresNIO

extension PostgresStore {
    package func cancelNotification(id: String, at: Date) async throws(ProviderError) -> Int {
        try await transaction(within: Self.bulkStatementLimit) { [logger] connection in
            try await connection.rows(
                "UPDATE notifications SET cancelled_at = \(at) WHERE id = \(id) AND cancelled_at IS NULL", logger)
            // Rows a worker holds (leasing them now) are skipped: they are sent and answered as usual (or withheld,
            // once the worker sees the notification cancelled). The deliveries of ranges not yet leased are
            // cancelled with their ranges.
            let rows = try await connection.rows(
                """
                WITH queued AS (
                    DELETE FROM delivery_queue
                    WHERE delivery_id = ANY(ARRAY(
                        SELECT delivery_id FROM delivery_queue
                        WHERE notification = (SELECT number FROM notifications WHERE id = \(id)) AND lease_owner IS NULL
                        FOR UPDATE SKIP LOCKED))
                    RETURNING delivery_id, attempts, not_before, reason),
                ranges AS (
                    DELETE FROM delivery_ranges
                    WHERE ctid = ANY(ARRAY(
                        SELECT ctid FROM delivery_ranges
                        WHERE notification = (SELECT number FROM notifications WHERE id = \(id))
                        FOR UPDATE SKIP LOCKED))
                    RETURNING notification, first_id, last_id, not_before, reason),
                changed AS (
                    SELECT delivery_id, attempts, not_before, reason FROM queued
                    UNION ALL
                    SELECT d.id, 0, g.not_before, g.reason
                    FROM ranges g JOIN deliveries d ON d.notification = g.notification AND d.id BETWEEN g.first_id AND g.last_id),
                written AS (
                    INSERT INTO delivery_results (delivery_id, state, attempts, not_before, reason, result_at)
                    SELECT delivery_id, \(unescaped: DeliveryState.cancelled.sql), attempts, not_before, reason, \(at)
                    FROM changed),
                counted AS (
                    INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                    SELECT \(id), \(NotificationCounter.cancelled.rawValue), '', count(*) FROM changed
                    HAVING count(*) > 0
                    ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + excluded.n)
                SELECT count(*) FROM changed
                """, logger)
            return try rows.first?.decode(Int.self) ?? 0
        }
    }

    package func updateUnsentNotification(_ notification: StoredNotification, dropOccurrences: Bool, now: Date)
        async throws(ProviderError) -> Bool
    {
        let n = notification
        let payload = ByteBuffer(bytes: n.payload)
        return try await transaction(within: Self.bulkStatementLimit) { [logger] connection in
            if n.dailyAt == nil {
                // The queued rows are locked first, so no worker leases them between the check and the change; one
                // leased or answered meanwhile makes the change fail.
                try await connection.rows(
                    """
                    SELECT 1 FROM delivery_queue
                    WHERE notification = (SELECT number FROM notifications WHERE id = \(n.id)) AND lease_owner IS NULL
                    FOR UPDATE
                    """, logger)
                try await connection.rows(
                    """
                    SELECT 1 FROM delivery_ranges
                    WHERE notification = (SELECT number FROM notifications WHERE id = \(n.id))
                    FOR UPDATE
                    """, logger)
                // Unsent: queued and never tried, in the queue or in a range.
                let sent = try await connection.rows(
                    """
                    SELECT 1 FROM deliveries d
                    WHERE d.notification = (SELECT number FROM notifications WHERE id = \(n.id))
                        AND NOT EXISTS (
                            SELECT 1 FROM delivery_queue q
                            WHERE q.delivery_id = d.id AND q.lease_owner IS NULL AND q.attempts = 0)
                        AND NOT EXISTS (
                            SELECT 1 FROM delivery_ranges g
                            WHERE g.notification = d.notification AND d.id BETWEEN g.first_id AND g.last_id)
                    LIMIT 1
                    """, logger)
                guard sent.isEmpty else { return false }
                try await connection.rows(
                    """
                    UPDATE delivery_queue SET not_before = \(n.sendAt)
                    WHERE notification = (SELECT number FROM notifications WHERE id = \(n.id))
                    """, logger)
                try await connection.rows(
                    """
                    UPDATE delivery_ranges SET not_before = \(n.sendAt)
                    WHERE notification = (SELECT number FROM notifications WHERE id = \(n.id))
                    """, logger)
            } else if dropOccurrences {
                try await connection.rows(
                    """
                    WITH dropped AS (
                        DELETE FROM delivery_queue
                        WHERE notification = (SELECT number FROM notifications WHERE id = \(n.id))
                            AND lease_owner IS NULL AND attempts = 0 AND not_before > \(now)
                        RETURNING delivery_id),
                    gone AS (DELETE FROM deliveries d USING dropped WHERE d.id = dropped.delivery_id)
                    UPDATE notifications SET targeted = targeted - (SELECT count(*) FROM dropped) WHERE id = \(n.id)
                    """, logger)
            }
            try await connection.rows(
                """
                UPDATE notifications SET payload = \(payload), push_type = \(n.pushType), priority = \(n.priority),
                    expiration = \(n.expiration), collapse_id = \(n.collapseID), send_at = \(n.sendAt),
                    daily_at = \(n.dailyAt), localized = \(n.localized), variables = \(n.variables),
                    quiet_hours = \(n.quietHours), cap_category = \(n.capCategory)
                WHERE id = \(n.id)
                """, logger)
            return true
        }
    }

    package func resend(notificationID: String, reasons: [String], answered: ClosedRange<Date>, now: Date)
        async throws(ProviderError) -> Int
    {
        guard !reasons.isEmpty else { return 0 }
        let (from, to) = (answered.lowerBound, answered.upperBound)
        return try await transaction(within: Self.bulkStatementLimit) { [logger] connection in
            let rows = try await connection.rows(
                """
                WITH changed AS (
                    DELETE FROM delivery_results r USING deliveries d
                    WHERE r.delivery_id = d.id
                        AND d.notification = (SELECT number FROM notifications WHERE id = \(notificationID))
                        AND r.state = \(unescaped: DeliveryState.rejected.sql)
                        AND r.reason = ANY(\(reasons)) AND r.result_at BETWEEN \(from) AND \(to)
                    RETURNING r.delivery_id, d.notification, r.reason),
                queued AS (
                    INSERT INTO delivery_queue (delivery_id, notification, not_before, reason)
                    SELECT delivery_id, notification, \(now), reason FROM changed),
                counted AS (
                    UPDATE notification_counters c SET n = c.n - r.n
                    FROM (SELECT reason, count(*) AS n FROM changed GROUP BY 1) r
                    WHERE c.notification_id = \(notificationID)
                        AND c.name = \(NotificationCounter.rejected.rawValue) AND c.reason = r.reason)
                SELECT count(*) FROM changed
                """, logger)
            return try rows.first?.decode(Int.self) ?? 0
        }
    }

    package func setPaused(appID: String, at: Date?) async throws(ProviderError) -> Bool {
        try await rows("UPDATE apps SET paused_at = \(at), pause_reason = NULL WHERE id = \(appID) RETURNING 1").count
            > 0
    }

    package func pauseForCredentials(appID: String, reason: String, at: Date) async throws(ProviderError) -> Bool {
        try await rows(
            """
            UPDATE apps SET paused_at = \(at), pause_reason = \(reason) WHERE id = \(appID) AND paused_at IS NULL
            RETURNING 1
            """
        ).count > 0
    }

    package func park(appID: String, reason: String, until: Date) async throws(ProviderError) -> Int {
        try await count(
            """
            WITH changed AS (
                UPDATE delivery_queue SET not_before = \(until), reason = \(reason)
                WHERE delivery_id = ANY(ARRAY(
                    SELECT delivery_id FROM delivery_queue WHERE lease_owner IS NULL
                        AND notification IN (SELECT number FROM notifications WHERE app_id = \(appID))
                    FOR UPDATE SKIP LOCKED))
                RETURNING 1),
            ranges AS (
                UPDATE delivery_ranges SET not_before = \(until), reason = \(reason)
                WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM delivery_ranges
                    WHERE notification IN (SELECT number FROM notifications WHERE app_id = \(appID))
                    FOR UPDATE SKIP LOCKED))
                RETURNING notification, first_id, last_id)
            SELECT (SELECT count(*) FROM changed) + (
                SELECT count(*) FROM ranges g
                JOIN deliveries d ON d.notification = g.notification AND d.id BETWEEN g.first_id AND g.last_id)
            """, within: Self.bulkStatementLimit)
    }

    package func deleteApp(id: String) async throws(ProviderError) -> AppDeletion? {
        // The app goes first (its API keys with it, so nothing adds to it meanwhile), then what is left of it.
        let removed = try await transaction {
            [logger] connection -> (devices: Int, notifications: [(id: String, number: Int64)])? in
            guard try await !connection.rows("SELECT 1 FROM apps WHERE id = \(id) FOR UPDATE", logger).isEmpty else {
                return nil
            }
            var notifications: [(id: String, number: Int64)] = []
            for row in try await connection.rows("SELECT id, number FROM notifications WHERE app_id = \(id)", logger) {
                let (notification, number) = try row.decode((String, Int64).self)
                notifications.append((notification, number))
            }
            let devices =
                try await connection.rows("SELECT count(*) FROM devices WHERE app_id = \(id)", logger).first?.decode(
                    Int.self) ?? 0
            try await connection.rows("DELETE FROM device_tags WHERE app_id = \(id)", logger)
            // Devices, keys, notifications, tokens and channels go with it (ON DELETE CASCADE).
            try await connection.rows("DELETE FROM apps WHERE id = \(id)", logger)
            return (devices, notifications)
        }
        guard let removed else { return nil }
        var deliveries = 0
        for notification in removed.notifications {
            deliveries += try await deleteRows(of: notification.id, number: notification.number)
        }
        return AppDeletion(
            appID: id, devices: removed.devices, notifications: removed.notifications.count, deliveries: deliveries)
    }

    /// Rows deleted per statement when an app's deliveries and reports go.
    static let deletionBatch = 5000

    /// Deletes every delivery, report and counter of a notification (its id and its number: the notification itself
    /// is gone), ``deletionBatch`` rows a statement; the number of deliveries deleted.
    private func deleteRows(of notificationID: String, number: Int64) async throws(ProviderError) -> Int {
        try await rows("DELETE FROM delivery_ranges WHERE notification = \(number)")
        let deliveries = try await deleteInBatches(
            """
            WITH gone AS (
                DELETE FROM deliveries WHERE id = ANY(ARRAY(
                    SELECT id FROM deliveries WHERE notification = \(number) ORDER BY id LIMIT \(Self.deletionBatch)))
                RETURNING id),
            queue AS (DELETE FROM delivery_queue q USING gone WHERE q.delivery_id = gone.id),
            results AS (DELETE FROM delivery_results r USING gone WHERE r.delivery_id = gone.id)
            SELECT count(*) FROM gone
            """)
        _ = try await deleteInBatches(
            """
            WITH gone AS (
                DELETE FROM feedback WHERE id = ANY(ARRAY(
                    SELECT id FROM feedback WHERE notification_id = \(notificationID) ORDER BY id
                    LIMIT \(Self.deletionBatch)))
                RETURNING 1)
            SELECT count(*) FROM gone
            """)
        try await rows("DELETE FROM notification_counters WHERE notification_id = \(notificationID)")
        return deliveries
    }

    /// Runs `statement`, which deletes at most ``deletionBatch`` rows and counts them, until it deletes fewer; the
    /// rows deleted in all.
    private func deleteInBatches(_ statement: PostgresQuery) async throws(ProviderError) -> Int {
        var deleted = 0
        while true {
            let count = try await count(statement)
            deleted += count
            if count < Self.deletionBatch { return deleted }
        }
    }
}
