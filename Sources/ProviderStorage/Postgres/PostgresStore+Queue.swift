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
            """, within: Self.queueStatementLimit, function: "lease")
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
    static let token = PostgresSchema.deliveryToken("deliveries") + " AS token"

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
    func vacuumQueueIfDue() async {
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
}
