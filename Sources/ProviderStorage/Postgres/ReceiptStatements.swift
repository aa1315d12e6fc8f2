import Foundation
import PostgresNIO

/// The three statements of every receipt batch (``PostgresStore/recordFeedback(_:)``), prepared: each connection has
/// PostgreSQL parse and plan one at its first use and afterwards only binds its values. Planned each time, they spent
/// a sixth of their time in the planner (pg_stat_statements over a 200,000-receipt storm: 1.9 ms of planning and
/// 9.0 ms of execution a batch), on a machine whose cores the provider needs.
enum ReceiptStatements {
    /// The token of the delivery `d`, as text.
    private static let deliveryToken = PostgresSchema.deliveryToken("d")

    /// The deliveries with the IDs `$1` as receipts read them, locked until the transaction ends (in ID order, so
    /// concurrent batches lock in the same order).
    struct Deliveries: DeliveryIDsStatement {
        static let sql = """
            SELECT d.id, n.id, n.app_id, n.created_at, \(deliveryToken), v.user_id, a.webhook_url,
                d.delivered_at, d.displayed_at, d.opened_at, d.dismissed_at, d.action, d.reply, d.outcome,
                d.outcome_detail
            FROM deliveries d JOIN notifications n ON n.number = d.notification
            JOIN apps a ON a.id = n.app_id
            LEFT JOIN devices v ON v.app_id = n.app_id AND v.token = \(deliveryToken)
            WHERE d.id = ANY($1) ORDER BY d.id
            FOR UPDATE OF d
            """

        let ids: [Int64]
    }

    /// The feedback rows of the deliveries `$1`, in row order. One index lookup a delivery, whatever the planner
    /// believes of the table: with `delivery_id = ANY(...)` it takes each listed ID for 0.5 % of the rows while
    /// `feedback` has no statistics yet (a table that fills during a storm) and reads the whole table instead (half
    /// the statements of a 100,000-device storm did, 4.9 ms each on average); `OFFSET 0` keeps the lookup a lookup
    /// (without it the planner turns the join into a hash join over the whole table again).
    struct Feedback: DeliveryIDsStatement {
        static let sql = """
            SELECT f.id, f.delivery_id, f.event, f.action, f.reply, f.at
            FROM unnest($1::bigint[]) AS u(id)
            CROSS JOIN LATERAL (SELECT * FROM feedback WHERE delivery_id = u.id OFFSET 0) f
            ORDER BY f.id
            """

        let ids: [Int64]
    }

    /// What a batch decided, in one statement (each kind of row a data-modifying `WITH` part; an empty list is a part
    /// that writes nothing): `$1` the feedback rows and `$2` the deliveries' new stages (``ReceiptRows``), `$3`–`$6`
    /// the counters to add to, `$7`–`$8` the apps that heard from their devices. A stage's time is only ever set
    /// where it was empty; counters come in key order, so concurrent batches lock them in the same order.
    struct Write: ReceiptStatement {
        static let sql = """
            WITH inserted AS (
                INSERT INTO feedback (delivery_id, notification_id, event, action, reply, at)
                SELECT delivery_id, notification_id, event, action, reply, to_timestamp(at)
                FROM jsonb_to_recordset($1::jsonb)
                    AS u(delivery_id bigint, notification_id text, event text, action text, reply text, at float8)
                RETURNING 1),
            changed AS (
                UPDATE deliveries d SET delivered_at = coalesce(d.delivered_at, to_timestamp(u.delivered_at)),
                    displayed_at = coalesce(d.displayed_at, to_timestamp(u.displayed_at)),
                    opened_at = coalesce(d.opened_at, to_timestamp(u.opened_at)),
                    dismissed_at = coalesce(d.dismissed_at, to_timestamp(u.dismissed_at)),
                    action = u.action, reply = u.reply, outcome = u.outcome, outcome_detail = u.outcome_detail
                FROM jsonb_to_recordset($2::jsonb)
                    AS u(id bigint, delivered_at float8, displayed_at float8, opened_at float8, dismissed_at float8,
                        action text, reply text, outcome text, outcome_detail text)
                WHERE d.id = u.id
                RETURNING 1),
            counted AS (
                INSERT INTO notification_counters AS c (notification_id, name, reason, n)
                SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[])
                ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = c.n + excluded.n
                RETURNING 1)
            -- At most one write an hour per app: whether its devices report at all (HeraldKit) is what it tells.
            UPDATE apps a SET last_receipt_at = to_timestamp(u.at)
            FROM unnest($7::text[], $8::float8[]) AS u(id, at)
            WHERE a.id = u.id AND (a.last_receipt_at IS NULL OR a.last_receipt_at < to_timestamp(u.at - 3600))
            """

        let batch: ReceiptBatch

        func makeBindings() -> PostgresBindings {
            let counters = batch.counters.sorted { $0.key < $1.key }
            let seen = batch.latestReceipt.sorted { $0.key < $1.key }
            var bindings = PostgresBindings(capacity: 8)
            bindings.append(ReceiptRows.feedback(batch.inserted))
            bindings.append(ReceiptRows.deliveries(batch.changed))
            bindings.append(counters.map(\.key.notificationID))
            bindings.append(counters.map(\.key.counter.rawValue))
            bindings.append(counters.map(\.key.reason))
            bindings.append(counters.map { Int64($0.value) })
            bindings.append(seen.map(\.key))
            bindings.append(seen.map { $0.value.timeIntervalSince1970 })
            return bindings
        }
    }
}

/// A statement of ``ReceiptStatements``: its rows read as they come.
protocol ReceiptStatement: PostgresPreparedStatement where Row == PostgresRow {}

extension ReceiptStatement {
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

/// A statement of ``ReceiptStatements`` whose one value, `$1`, is a list of delivery IDs.
protocol DeliveryIDsStatement: ReceiptStatement {
    var ids: [Int64] { get }
}

extension DeliveryIDsStatement {
    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(ids)
        return bindings
    }
}

extension PostgresConnection {
    /// The rows of a prepared statement (prepared on this connection at its first use).
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, _ logger: Logger) async throws
        -> [PostgresRow] where Statement.Row == PostgresRow
    {
        var rows: [PostgresRow] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}
