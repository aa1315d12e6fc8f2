import APNSCore
package import Foundation
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// A lease takes due queue rows first (retries, waits, a daily notification's occurrences), then, for what is
    /// still wanted, whole ranges of a fan-out's deliveries (``rangeSize``): each taken range is deleted and its
    /// deliveries get their queue rows, the wanted ones already leased and the rest queued for the next lease, in one
    /// statement, so a range is never half taken. Ranges smaller than ``rangeSize`` (small notifications) or whose
    /// deliveries are not sent (their notification is gone) leave the lease short: it takes more, a few times, while
    /// it still finds ranges.
    package func lease(owner: String, limit: Int, now: Date, leaseFor: TimeInterval) async throws(ProviderError)
        -> [LeasedDelivery]
    {
        guard limit > 0 else { return [] }
        var leased: [LeasedDelivery] = []
        for _ in 0..<Self.leaseRounds {
            let (taken, rangesTaken) = try await leaseOnce(
                owner: owner, limit: limit - leased.count, now: now, leaseFor: leaseFor)
            leased += taken
            if leased.count >= limit || rangesTaken == 0 { break }
        }
        await vacuumQueueIfDue()
        return leased.sorted { $0.id < $1.id }
    }

    /// The most statements one lease runs to fill itself from small ranges.
    static let leaseRounds = 8

    /// One lease statement: the deliveries it leased, and how many ranges it took.
    /// `SKIP LOCKED` lets workers of several processes lease at once: each takes rows no other transaction holds.
    /// `= ANY(ARRAY(...))` rather than `IN (...)`: with `IN`, PostgreSQL joined the batch against a scan of the whole
    /// queue, so each lease of a million-row broadcast read every row.
    private func leaseOnce(owner: String, limit: Int, now: Date, leaseFor: TimeInterval) async throws(ProviderError)
        -> (leased: [LeasedDelivery], rangesTaken: Int)
    {
        // The notifications' ids and apps and the deliveries' tokens are joined to the leased rows after the update
        // (a lease holds the deliveries of a few notifications); a delivery whose notification is gone (its app was
        // deleted, which deletes these next) stays leased and is not returned, and is deleted when its lease runs out.
        // The last row counts the ranges taken.
        let until = now.addingTimeInterval(leaseFor)
        let rows = try await rows(
            """
            WITH leased AS (
                UPDATE delivery_queue SET lease_owner = \(owner), lease_until = \(until), attempts = attempts + 1
                WHERE delivery_id = ANY(ARRAY(
                    SELECT delivery_id FROM delivery_queue WHERE lease_owner IS NULL AND not_before <= \(now)
                    ORDER BY not_before, delivery_id LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED))
                RETURNING delivery_id, notification, attempts),
            wanted AS (SELECT \(limit) - count(*) AS n FROM leased),
            claimed AS (
                DELETE FROM delivery_ranges WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM delivery_ranges WHERE not_before <= \(now)
                    ORDER BY not_before, notification, first_id
                    LIMIT (
                        SELECT CASE WHEN n > 0 THEN (n - 1) / \(unescaped: Self.rangeSizeText) + 1 ELSE 0 END
                        FROM wanted)
                    FOR UPDATE SKIP LOCKED))
                RETURNING notification, first_id, last_id, not_before, reason),
            taken AS (
                SELECT d.id, c.notification, d.token, d.channel_id, c.not_before, c.reason,
                    row_number() OVER (ORDER BY c.not_before, d.id) <= (SELECT n FROM wanted) AS now_leased
                FROM claimed c CROSS JOIN LATERAL (
                    SELECT id, \(unescaped: Self.token), channel_id FROM deliveries
                    WHERE notification = c.notification AND id BETWEEN c.first_id AND c.last_id
                    ORDER BY id LIMIT \(unescaped: Self.rangeSizeText)) d),
            queued AS (
                INSERT INTO delivery_queue (delivery_id, notification, not_before, attempts, reason, lease_owner,
                    lease_until)
                SELECT id, notification, not_before, CASE WHEN now_leased THEN 1 ELSE 0 END, reason,
                    CASE WHEN now_leased THEN \(owner) END, CASE WHEN now_leased THEN \(until) END
                FROM taken),
            taken_now AS (
                SELECT l.delivery_id, l.notification, l.attempts, d.token, d.channel_id
                FROM leased l CROSS JOIN LATERAL (
                    SELECT \(unescaped: Self.token), channel_id FROM deliveries WHERE id = l.delivery_id LIMIT 1) d
                UNION ALL
                SELECT id, notification, 1, token, channel_id FROM taken WHERE now_leased)
            SELECT l.delivery_id, n.id, n.app_id, l.token, l.attempts::bigint, l.channel_id
            FROM taken_now l JOIN notifications n ON n.number = l.notification
            UNION ALL
            SELECT NULL, NULL, NULL, NULL, count(*), NULL FROM claimed
            """, within: Self.queueStatementLimit)
        do {
            var leased: [LeasedDelivery] = []
            leased.reserveCapacity(rows.count)
            var rangesTaken = 0
            for row in rows {
                let (id, notificationID, appID, token, attempts, channelID) = try row.decode(
                    (Int64?, String?, String?, String?, Int, String?).self)
                guard let id, let notificationID, let appID, let token else {
                    rangesTaken = attempts
                    continue
                }
                leased.append(
                    LeasedDelivery(
                        id: id, notificationID: notificationID, appID: appID,
                        address: DeliveryAddress(token: token, channelID: channelID), attempts: attempts))
            }
            return (leased, rangesTaken)
        } catch {
            throw Self.failure(error)
        }
    }

    /// How many of a fan-out's deliveries (by number) one row of `delivery_ranges` queues: a lease takes whole
    /// ranges, so what it takes beyond its limit (less than one range) waits in the queue for the next lease.
    package static let rangeSize = 500
    private static let rangeSizeText = String(rangeSize)
    /// A row of `deliveries`' token as text, named `token`.
    private static let token = PostgresSchema.deliveryToken("deliveries") + " AS token"

    /// Answers recorded after which a lease vacuums the queue.
    package static let vacuumQueueAfter = 10_000

    /// Vacuums the queue's table every ``vacuumQueueAfter`` answers: every answer leaves a dead queue row (its
    /// delivery's, deleted), and autovacuum comes only within a minute, after tens of thousands more; vacuumed now,
    /// the next deliveries' rows take the dead rows' places and the table stays the size of what is in flight.
    /// `SKIP_LOCKED`: a vacuum already running (autovacuum's, another provider's) is left to it. `TRUNCATE false`:
    /// giving the emptied pages at the table's end back to the disk takes a lock that stops every lease and answer
    /// until it is granted, and the next deliveries' rows would fill those pages again at once (seen waiting on it in
    /// `pg_stat_activity` mid-broadcast); autovacuum gives them back once the queue stays small. A failure is logged;
    /// autovacuum still comes.
    private func vacuumQueueIfDue() async {
        let due = answeredSinceQueueVacuum.withLock { answered in
            guard answered >= Self.vacuumQueueAfter else { return false }
            answered = 0
            return true
        }
        guard due else { return }
        do {
            try await rows("VACUUM (SKIP_LOCKED, TRUNCATE false) delivery_queue", within: Self.bulkStatementLimit)
        } catch {
            logger.warning(
                "vacuuming the delivery queue failed; autovacuum will do it", metadata: ["error": "\(error)"])
        }
    }

    /// An answer deletes the deliveries' queue rows and writes their result rows, one statement for each kind of
    /// result in the whole batch (`DELETE ... USING` the batch's `unnest(...)`), which also adds what it recorded to the
    /// notifications' counters (in key order, so concurrent writers lock counters in the same order). A row another
    /// process took back (its lease ran out) is left alone: only the lease's owner records it. A retry changes the
    /// queue row only.
    package func record(_ results: [DeliveryResult], owner: String) async throws(ProviderError) {
        guard !results.isEmpty else { return }
        let batch = ResultColumns(results)
        defer {
            answeredSinceQueueVacuum.withLock { $0 += batch.acceptedIDs.count + batch.rejectedIDs.count }
        }
        let statements = Self.recordStatements(batch, owner: owner)
        // One statement (a batch of one kind of result: a broadcast's, all accepted) is atomic by itself: run without
        // BEGIN and COMMIT it is one round trip instead of three, and holds its notifications' counter rows (which
        // every worker of every provider sending them updates) only while it runs, not for a round trip more.
        if statements.count == 1 {
            _ = try await rows(statements[0], within: Self.queueStatementLimit)
            return
        }
        try await transaction(within: Self.queueStatementLimit) { [logger] connection in
            for statement in statements { try await connection.rows(statement, logger) }
        }
    }

    /// The statements that record a batch of results, in the order they run (in one transaction when there are more
    /// than one: see ``record(_:owner:)``).
    static func recordStatements(_ batch: ResultColumns, owner: String) -> [PostgresQuery] {
        var statements: [PostgresQuery] = []
        if !batch.acceptedIDs.isEmpty {
            statements.append(
                """
                WITH u AS MATERIALIZED (
                    SELECT * FROM unnest(\(batch.acceptedIDs)::bigint[], \(batch.acceptedUniqueIDs)::uuid[],
                        \(batch.acceptedUniqueIsUUID)::bool[], \(batch.acceptedUniqueTexts)::text[],
                        \(batch.acceptedAt)::timestamptz[]) AS u(id, unique_id, is_uuid, unique_text, at)),
                changed AS (
                    DELETE FROM delivery_queue q USING u
                    WHERE q.delivery_id = u.id AND \(unescaped: Self.queueRowsOf)
                        AND q.lease_owner = \(owner)
                    RETURNING q.delivery_id, q.notification, q.attempts, q.not_before, q.reason, u.unique_id,
                        u.is_uuid, u.unique_text, u.at),
                written AS (
                    INSERT INTO delivery_results (delivery_id, state, attempts, not_before, status, reason,
                        apns_unique_id, apns_unique_text, result_at)
                    SELECT delivery_id, \(unescaped: DeliveryState.accepted.sql), attempts, not_before, 200, reason,
                        CASE WHEN is_uuid THEN unique_id END, nullif(unique_text, ''), at
                    FROM changed)
                INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                SELECT n.id, \(NotificationCounter.accepted.rawValue), '', count(*)
                FROM changed JOIN notifications n ON n.number = changed.notification GROUP BY 1 ORDER BY 1
                ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + excluded.n
                """)
        }
        if !batch.rejectedIDs.isEmpty {
            statements.append(
                """
                WITH u AS MATERIALIZED (
                    SELECT * FROM unnest(\(batch.rejectedIDs)::bigint[], \(batch.rejectedStatuses)::bigint[],
                        \(batch.rejectedReasons)::text[], \(batch.rejectedAt)::timestamptz[])
                        AS u(id, status, reason, at)),
                changed AS (
                    DELETE FROM delivery_queue q USING u
                    WHERE q.delivery_id = u.id AND \(unescaped: Self.queueRowsOf)
                        AND q.lease_owner = \(owner)
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
                """)
        }
        if !batch.retryIDs.isEmpty {
            statements.append(
                """
                WITH u AS MATERIALIZED (
                    SELECT * FROM unnest(\(batch.retryIDs)::bigint[], \(batch.retryReasons)::text[],
                        \(batch.retryNotBefore)::timestamptz[], \(batch.retryRefunds)::int[])
                        AS u(id, reason, not_before, refund))
                UPDATE delivery_queue q SET reason = u.reason, not_before = u.not_before, lease_owner = NULL,
                    lease_until = NULL, attempts = q.attempts - u.refund
                FROM u
                WHERE q.delivery_id = u.id AND \(unescaped: Self.queueRowsOf) AND q.lease_owner = \(owner)
                """)
        }
        if !batch.deactivatedTokens.isEmpty {
            statements.append(
                """
                UPDATE devices v SET active = false, deactivated_at = u.at, deactivation_reason = u.reason
                FROM unnest(\(batch.deactivatedApps)::text[], \(batch.deactivatedTokens)::text[],
                    \(batch.deactivatedAt)::timestamptz[], \(batch.deactivatedReasons)::text[])
                    AS u(app_id, token, at, reason)
                WHERE v.app_id = u.app_id AND v.token = u.token
                    AND v.registered_at < u.at + interval '1 millisecond'
                """)
            // An activity's token that APNs retired is forgotten: the activity ended, or the app was removed.
            statements.append(
                """
                DELETE FROM activity_tokens a
                USING unnest(\(batch.deactivatedApps)::text[], \(batch.deactivatedTokens)::text[],
                    \(batch.deactivatedAt)::timestamptz[]) AS u(app_id, token, at)
                WHERE a.app_id = u.app_id AND a.token = u.token
                    AND a.registered_at < u.at + interval '1 millisecond'
                """)
        }
        return statements
    }

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

    /// The condition that finds a batch's queue rows (`q`) by their ids (`u`) through the queue's primary key. Joined
    /// to `unnest(...)` alone, PostgreSQL read the whole queue and hashed it for every batch: it expects a provider's
    /// leased rows to be a handful (`lease_owner` keeps no statistics, and the table's were taken while it was small),
    /// so a scan looked cheaper than a lookup per id; during a broadcast that was 12,000 to 20,000 rows for every
    /// 3,000 answers, a quarter of PostgreSQL's time. Ids from a subquery are a list the planner cannot size, so it
    /// looks each one up.
    private static let queueRowsOf = "q.delivery_id = ANY(ARRAY(SELECT id FROM u))"

    /// A batch of results as the columns the `unnest` updates read.
    struct ResultColumns {
        var acceptedIDs: [Int64] = []
        /// Each accepted delivery's `apns-unique-id` as a uuid when it is one in lower case (the form a uuid reads
        /// back in), else the nil UUID and ``acceptedUniqueIsUUID`` false; checked here, not by a pattern in SQL.
        var acceptedUniqueIDs: [UUID] = []
        var acceptedUniqueIsUUID: [Bool] = []
        /// The `apns-unique-id` kept as text: one that is not a lower-case UUID; `""` for none.
        var acceptedUniqueTexts: [String] = []
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

        /// The placeholder in ``acceptedUniqueIDs`` where there is no uuid.
        private static let nilUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

        init(_ results: [DeliveryResult]) {
            for result in results {
                switch result {
                case .accepted(let id, _, let uniqueID, let at):
                    acceptedIDs.append(id)
                    let uuid = uniqueID.flatMap(UUIDText.parseLowercase)
                    acceptedUniqueIDs.append(uuid ?? Self.nilUUID)
                    acceptedUniqueIsUUID.append(uuid != nil)
                    acceptedUniqueTexts.append(uuid == nil ? uniqueID ?? "" : "")
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
