package import Foundation
import PostgresNIO

/// Leases that outlive their worker: taken back when they run out or their provider stops beating, released, extended;
/// parked deliveries woken; the queue's depth.
extension PostgresStore {
    /// A delivery whose notification is gone is deleted here once its lease ran out; one still in a range gets its
    /// queue row (leased, never returned) from the lease that takes the range, and goes the same way.
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
                RETURNING 1),
            ranges AS (
                UPDATE delivery_ranges SET not_before = \(now)
                WHERE not_before > \(now) AND reason = \(reason)
                    AND notification IN (SELECT number FROM notifications WHERE app_id = \(appID))
                RETURNING notification, first_id, last_id)
            SELECT (SELECT count(*) FROM changed) + (
                SELECT count(*) FROM ranges g
                JOIN deliveries d ON d.notification = g.notification AND d.id BETWEEN g.first_id AND g.last_id)
            """, within: Self.queueStatementLimit)
    }

    /// Counted up to `exactUpTo + 1` queued deliveries (the queue's rows not leased, then the ranges' deliveries);
    /// past that, the number of entries the statistics give the queue's index (autovacuum keeps it, after every 2 %
    /// of the table changed) plus the ranges' spans. A full count took 0.4 s on average and up to 4 s during a
    /// 10,000,000-device broadcast, every few seconds, on the database every provider shares; counting 10,001 takes a
    /// few milliseconds.
    package func queueDepth(exactUpTo: Int) async throws(ProviderError) -> Int {
        // A negative limit counts nothing exactly; Int.max counts everything (its LIMIT would overflow).
        let exact = min(max(exactUpTo, 0), Int.max - 1)
        let counted = try await count(
            """
            SELECT count(*) FROM (
                SELECT 1 FROM delivery_queue WHERE lease_owner IS NULL
                UNION ALL
                SELECT 1 FROM delivery_ranges g
                JOIN deliveries d ON d.notification = g.notification AND d.id BETWEEN g.first_id AND g.last_id
                LIMIT \(exact + 1)
            ) AS queued
            """)
        guard counted > exact else { return counted }
        // A range holds at most its span of numbers (fewer when another notification's deliveries came between).
        let estimated = try await count(
            """
            SELECT (SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass('delivery_queue_due'))
                + (SELECT coalesce(sum(last_id - first_id + 1), 0)::bigint FROM delivery_ranges)
            """)
        return max(counted, estimated)
    }

    package func queueGauges(now: Date) async throws(ProviderError) -> (leased: Int, oldestDue: Date?) {
        // Each side reads the first entry of an index (delivery_queue_due, delivery_ranges_due), and the leased
        // entries theirs: cheap with millions queued.
        let rows = try await rows(
            """
            SELECT (SELECT count(*) FROM delivery_queue WHERE lease_owner IS NOT NULL),
                least(
                    (SELECT min(not_before) FROM delivery_queue WHERE lease_owner IS NULL AND not_before <= \(now)),
                    (SELECT min(not_before) FROM delivery_ranges WHERE not_before <= \(now)))
            """, within: Self.queueStatementLimit)
        do {
            guard let row = rows.first else { return (0, nil) }
            let (leased, oldest) = try row.decode((Int, Date?).self)
            return (leased, oldest)
        } catch {
            throw Self.failure(error)
        }
    }
}
