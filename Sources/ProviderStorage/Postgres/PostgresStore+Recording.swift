import APNSCore
import Foundation
import PostgresNIO
import Synchronization

/// Recording APNs' answers: a batch of results written in one statement per kind, found by key.
extension PostgresStore {
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

    /// The condition that finds a batch's queue rows (`q`) by their ids (`u`) through the queue's primary key. Joined
    /// to `unnest(...)` alone, PostgreSQL read the whole queue and hashed it for every batch: it expects a provider's
    /// leased rows to be a handful (`lease_owner` keeps no statistics, and the table's were taken while it was small),
    /// so a scan looked cheaper than a lookup per id; during a broadcast that was 12,000 to 20,000 rows for every
    /// 3,000 answers, a quarter of PostgreSQL's time. Ids from a subquery are a list the planner cannot size, so it
    /// looks each one up.
    static let queueRowsOf = "q.delivery_id = ANY(ARRAY(SELECT id FROM u))"

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
