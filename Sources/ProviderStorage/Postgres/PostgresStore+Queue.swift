package import Foundation
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// A lease changes only the deliveries' narrow queue rows (`delivery_queue`), never the delivery rows themselves.
    /// `SKIP LOCKED` lets workers of several processes lease at once: each takes rows no other transaction holds.
    /// `delivery_id = ANY(ARRAY(...))` rather than `IN (...)`: with `IN`, PostgreSQL joins the batch against a scan of
    /// the whole table, so each lease of a million-row broadcast read every row.
    package func lease(owner: String, limit: Int, now: Date, leaseFor: TimeInterval) async throws(ProviderError)
        -> [LeasedDelivery]
    {
        // The notifications' ids and apps and the deliveries' tokens are joined to the leased rows after the update
        // (a lease holds the deliveries of a few notifications); a delivery whose notification is gone (its app was
        // deleted, which deletes these next) stays leased and is not returned, and is deleted when its lease runs out.
        let rows = try await rows(
            """
            WITH leased AS (
                UPDATE delivery_queue SET lease_owner = \(owner), lease_until = \(now.addingTimeInterval(leaseFor)),
                    attempts = attempts + 1
                WHERE delivery_id = ANY(ARRAY(
                    SELECT delivery_id FROM delivery_queue WHERE lease_owner IS NULL AND not_before <= \(now)
                    ORDER BY not_before, delivery_id LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED))
                RETURNING delivery_id, notification, attempts)
            SELECT l.delivery_id, n.id, n.app_id, d.token, l.attempts::bigint, d.channel_id
            FROM leased l JOIN deliveries d ON d.id = l.delivery_id JOIN notifications n ON n.number = l.notification
            """, within: Self.queueStatementLimit)
        if rows.isEmpty { await vacuumQueueIfDrained() }
        do {
            return try rows.map { row in
                let (id, notificationID, appID, token, attempts, channelID) = try row.decode(
                    (Int64, String, String, String, Int, String?).self)
                return LeasedDelivery(
                    id: id, notificationID: notificationID, appID: appID,
                    address: DeliveryAddress(token: token, channelID: channelID), attempts: attempts)
            }.sorted { $0.id < $1.id }
        } catch {
            throw Self.failure(error)
        }
    }

    /// Answers recorded after which a lease that finds nothing due vacuums the queue.
    package static let vacuumQueueAfter = 10_000

    /// Vacuums the queue's table once a broadcast drained it: every queue row the broadcast had is dead by then (its
    /// lease left one version, its answer deleted the other), and autovacuum comes only within a minute, after the
    /// next broadcast may have begun. Vacuumed now, the emptied table goes back to the disk and its index pages are free
    /// for the next broadcast. `SKIP_LOCKED`: a vacuum already running (autovacuum's, another provider's) is left to
    /// it. A failure is logged; autovacuum still comes.
    private func vacuumQueueIfDrained() async {
        let due = answeredSinceQueueVacuum.withLock { answered in
            guard answered >= Self.vacuumQueueAfter else { return false }
            answered = 0
            return true
        }
        guard due else { return }
        do {
            try await rows("VACUUM (SKIP_LOCKED) delivery_queue", within: Self.bulkStatementLimit)
        } catch {
            logger.warning(
                "vacuuming the delivery queue after a broadcast failed; autovacuum will do it",
                metadata: ["error": "\(error)"])
        }
    }

    /// An answer deletes the deliveries' queue rows and writes their result rows, one statement for each kind of
    /// result in the whole batch (`DELETE ... USING unnest(...)`), which also adds what it recorded to the
    /// notifications' counters (in key order, so concurrent writers lock counters in the same order). A row another
    /// process took back (its lease ran out) is left alone: only the lease's owner records it. A retry changes the
    /// queue row only.
    package func record(_ results: [DeliveryResult], owner: String) async throws(ProviderError) {
        guard !results.isEmpty else { return }
        let batch = ResultColumns(results)
        defer {
            answeredSinceQueueVacuum.withLock { $0 += batch.acceptedIDs.count + batch.rejectedIDs.count }
        }
        try await transaction(within: Self.queueStatementLimit) { [logger] connection in
            if !batch.acceptedIDs.isEmpty {
                try await connection.rows(
                    """
                    WITH changed AS (
                        DELETE FROM delivery_queue q
                        USING unnest(\(batch.acceptedIDs)::bigint[], \(batch.acceptedUniqueIDs)::text[],
                            \(batch.acceptedAt)::timestamptz[]) AS u(id, unique_id, at)
                        WHERE q.delivery_id = u.id AND q.lease_owner = \(owner)
                        RETURNING q.delivery_id, q.notification, q.attempts, q.not_before, q.reason, u.unique_id, u.at),
                    written AS (
                        INSERT INTO delivery_results (delivery_id, state, attempts, not_before, status, reason,
                            apns_unique_id, apns_unique_text, result_at)
                        SELECT delivery_id, \(unescaped: DeliveryState.accepted.sql), attempts, not_before, 200, reason,
                            CASE WHEN unique_id ~ \(PostgresSchema.uuidPattern) THEN unique_id::uuid END,
                            CASE WHEN unique_id !~ \(PostgresSchema.uuidPattern) THEN nullif(unique_id, '') END, at
                        FROM changed)
                    INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                    SELECT n.id, \(NotificationCounter.accepted.rawValue), '', count(*)
                    FROM changed JOIN notifications n ON n.number = changed.notification GROUP BY 1 ORDER BY 1
                    ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + excluded.n
                    """, logger)
            }
            if !batch.rejectedIDs.isEmpty {
                try await connection.rows(
                    """
                    WITH changed AS (
                        DELETE FROM delivery_queue q
                        USING unnest(\(batch.rejectedIDs)::bigint[], \(batch.rejectedStatuses)::bigint[],
                            \(batch.rejectedReasons)::text[], \(batch.rejectedAt)::timestamptz[])
                            AS u(id, status, reason, at)
                        WHERE q.delivery_id = u.id AND q.lease_owner = \(owner)
                        RETURNING q.delivery_id, q.notification, q.attempts, q.not_before, u.status, u.reason, u.at),
                    written AS (
                        INSERT INTO delivery_results (delivery_id, state, attempts, not_before, status, reason,
                            result_at)
                        SELECT delivery_id, \(unescaped: DeliveryState.rejected.sql), attempts, not_before,
                            nullif(status, 0), reason, at
                        FROM changed)
                    INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                    SELECT n.id, \(NotificationCounter.rejected.rawValue), changed.reason, count(*)
                    FROM changed JOIN notifications n ON n.number = changed.notification GROUP BY 1, 3 ORDER BY 1, 3
                    ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + excluded.n
                    """, logger)
            }
            if !batch.retryIDs.isEmpty {
                try await connection.rows(
                    """
                    UPDATE delivery_queue q SET reason = u.reason, not_before = u.not_before, lease_owner = NULL,
                        lease_until = NULL, attempts = q.attempts - u.refund
                    FROM unnest(\(batch.retryIDs)::bigint[], \(batch.retryReasons)::text[],
                        \(batch.retryNotBefore)::timestamptz[], \(batch.retryRefunds)::int[]) AS u(id, reason, not_before, refund)
                    WHERE q.delivery_id = u.id AND q.lease_owner = \(owner)
                    """, logger)
            }
            if !batch.deactivatedTokens.isEmpty {
                try await connection.rows(
                    """
                    UPDATE devices v SET active = false, deactivated_at = u.at, deactivation_reason = u.reason
                    FROM unnest(\(batch.deactivatedApps)::text[], \(batch.deactivatedTokens)::text[],
                        \(batch.deactivatedAt)::timestamptz[], \(batch.deactivatedReasons)::text[])
                        AS u(app_id, token, at, reason)
                    WHERE v.app_id = u.app_id AND v.token = u.token
                        AND v.registered_at < u.at + interval '1 millisecond'
                    """, logger)
                // An activity's token that APNs retired is forgotten: the activity ended, or the app was removed.
                try await connection.rows(
                    """
                    DELETE FROM activity_tokens a
                    USING unnest(\(batch.deactivatedApps)::text[], \(batch.deactivatedTokens)::text[],
                        \(batch.deactivatedAt)::timestamptz[]) AS u(app_id, token, at)
                    WHERE a.app_id = u.app_id AND a.token = u.token
                        AND a.registered_at < u.at + interval '1 millisecond'
                    """, logger)
            }
        }
    }

    package func reclaimExpiredLeases(now: Date) async throws(ProviderError) -> Int {
        try await count(
            """
            WITH gone AS (
                DELETE FROM delivery_queue q
                WHERE lease_owner IS NOT NULL AND lease_until < \(now)
                    AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.number = q.notification)
                RETURNING delivery_id),
            gone_deliveries AS (DELETE FROM deliveries d USING gone WHERE d.id = gone.delivery_id),
            changed AS (
                UPDATE delivery_queue q SET lease_owner = NULL, lease_until = NULL
                WHERE lease_owner IS NOT NULL AND lease_until < \(now)
                    AND EXISTS (SELECT 1 FROM notifications n WHERE n.number = q.notification)
                RETURNING 1)
            SELECT count(*) FROM changed
            """, within: Self.queueStatementLimit)
    }

    package func heartbeat(owner: String, staleAfter: TimeInterval) async throws(ProviderError) -> Int {
        // The database's clock judges every process, so clocks that disagree between machines do not matter.
        _ = try await rows(
            """
            INSERT INTO provider_heartbeats (owner, seen_at) VALUES (\(owner), now())
            ON CONFLICT (owner) DO UPDATE SET seen_at = now()
            """, within: Self.queueStatementLimit)
        return try await count(
            """
            WITH dead AS (
                DELETE FROM provider_heartbeats WHERE seen_at < now() - make_interval(secs => \(staleAfter))
                RETURNING owner),
            changed AS (
                UPDATE delivery_queue SET lease_owner = NULL, lease_until = NULL
                WHERE lease_owner IS NOT NULL AND lease_until IS NOT NULL AND lease_owner IN (SELECT owner FROM dead)
                RETURNING 1)
            SELECT count(*) FROM changed
            """, within: Self.queueStatementLimit)
    }

    package func releaseLeases(owner: String) async throws(ProviderError) -> Int {
        try await count(
            """
            WITH changed AS (
                UPDATE delivery_queue SET lease_owner = NULL, lease_until = NULL, attempts = attempts - 1
                WHERE lease_owner = \(owner) RETURNING 1)
            SELECT count(*) FROM changed
            """, within: Self.queueStatementLimit)
    }

    package func releaseLease(owner: String, until: Date) async throws(ProviderError) -> Int {
        try await count(
            """
            WITH changed AS (
                UPDATE delivery_queue SET lease_owner = NULL, lease_until = NULL, attempts = attempts - 1
                WHERE lease_owner = \(owner) AND lease_until = \(until)
                RETURNING 1)
            SELECT count(*) FROM changed
            """, within: Self.queueStatementLimit)
    }

    package func extendLeases(owner: String, until: Date) async throws(ProviderError) -> Int {
        try await count(
            """
            WITH changed AS (
                UPDATE delivery_queue SET lease_until = \(until) WHERE lease_owner = \(owner) RETURNING 1)
            SELECT count(*) FROM changed
            """, within: Self.queueStatementLimit)
    }

    package func wakeWaiting(appID: String, reason: String, now: Date) async throws(ProviderError) -> Int {
        try await count(
            """
            WITH changed AS (
                UPDATE delivery_queue SET not_before = \(now)
                WHERE lease_owner IS NULL AND not_before > \(now) AND reason = \(reason)
                    AND notification IN (SELECT number FROM notifications WHERE app_id = \(appID))
                RETURNING 1)
            SELECT count(*) FROM changed
            """, within: Self.queueStatementLimit)
    }

    /// Counted up to `exactUpTo + 1` entries of the queue's index; past that, the number of entries the statistics
    /// give that index (ANALYZE keeps it: the provider runs it after a large fan-out, autovacuum after every 2 % of
    /// the table changed). A full count took 0.4 s on average and up to 4 s during a 10,000,000-device broadcast, every
    /// few seconds, on the database every provider shares; counting 10,001 entries takes a few milliseconds.
    package func queueDepth(exactUpTo: Int) async throws(ProviderError) -> Int {
        // A negative limit counts nothing exactly; Int.max counts everything (its LIMIT would overflow).
        let exact = min(max(exactUpTo, 0), Int.max - 1)
        let counted = try await count(
            """
            SELECT count(*) FROM (
                SELECT 1 FROM delivery_queue WHERE lease_owner IS NULL LIMIT \(exact + 1)
            ) AS queued
            """)
        guard counted > exact else { return counted }
        let estimated = try await count(
            "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass('delivery_queue_due')")
        return max(counted, estimated)
    }

    /// A batch of results as the columns the `unnest` updates read.
    private struct ResultColumns {
        var acceptedIDs: [Int64] = []
        var acceptedUniqueIDs: [String] = []
        var acceptedAt: [Date] = []
        var rejectedIDs: [Int64] = []
        var rejectedStatuses: [Int] = []
        var rejectedReasons: [String] = []
        var rejectedAt: [Date] = []
        var retryIDs: [Int64] = []
        var retryReasons: [String] = []
        var retryNotBefore: [Date] = []
        /// 1 for a delivery that waits for APNs to be reachable (its attempt is given back), 0 for a retry.
        var retryRefunds: [Int] = []
        var deactivatedApps: [String] = []
        var deactivatedTokens: [String] = []
        var deactivatedAt: [Date] = []
        var deactivatedReasons: [String] = []

        init(_ results: [DeliveryResult]) {
            for result in results {
                switch result {
                case .accepted(let id, _, let uniqueID, let at):
                    acceptedIDs.append(id)
                    acceptedUniqueIDs.append(uniqueID ?? "")
                    acceptedAt.append(at)
                case .rejected(let id, _, let status, let reason, let at, let deactivation):
                    rejectedIDs.append(id)
                    rejectedStatuses.append(status ?? 0)
                    rejectedReasons.append(reason)
                    rejectedAt.append(at)
                    if let deactivation {
                        deactivatedApps.append(deactivation.appID)
                        deactivatedTokens.append(deactivation.token)
                        deactivatedAt.append(deactivation.at)
                        deactivatedReasons.append(deactivation.reason)
                    }
                case .retry(let id, let reason, let notBefore):
                    retryIDs.append(id)
                    retryReasons.append(reason)
                    retryNotBefore.append(notBefore)
                    retryRefunds.append(0)
                case .wait(let id, let reason, let notBefore):
                    retryIDs.append(id)
                    retryReasons.append(reason)
                    retryNotBefore.append(notBefore)
                    retryRefunds.append(1)
                }
            }
        }
    }
}
