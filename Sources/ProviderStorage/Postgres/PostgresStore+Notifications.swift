package import Foundation
import PostgresNIO

extension PostgresStore {
    package func insertNotification(_ notification: StoredNotification, target: NotificationTarget, requireKey: Bool)
        async throws(ProviderError) -> Int
    {
        let n = notification
        var fanOut = PostgresStatement()
        let (id, sendAt, appID) = (fanOut.bind(n.id), fanOut.bind(n.sendAt), fanOut.bind(n.appID))
        // The deliveries name the notification by its number, given when the notification is inserted just before.
        // `fanOut` selects each delivery's notification, token and channel; the statement below writes them.
        let number = "(SELECT number FROM notifications WHERE id = \(id))"
        var budget: PostgresQuery?
        if case .channel(let channel) = target {
            // One broadcast: APNs fans it out.
            let channelID = fanOut.bind(channel)
            fanOut.append("SELECT \(number) AS notification, '' AS token, \(channelID)::text AS channel_id")
        } else if let (selection, values) = target.activitySelection {
            fanOut.append(
                """
                SELECT \(number) AS notification, a.token, NULL::text AS channel_id
                FROM activity_tokens a WHERE a.app_id = \(appID)
                """)
            fanOut.append(selection, binding: values)
            if n.priority != 5 {
                var update = PostgresStatement()
                let (hourAgo, now) = (update.bind(n.createdAt.addingTimeInterval(-3600)), update.bind(n.createdAt))
                let app = update.bind(n.appID)
                update.append(
                    """
                    UPDATE activity_tokens AS a SET
                        budget_used = CASE WHEN budget_hour_start > \(hourAgo) THEN budget_used + 1 ELSE 1 END,
                        budget_hour_start = CASE WHEN budget_hour_start > \(hourAgo) THEN budget_hour_start ELSE \(now) END
                    WHERE a.app_id = \(app) AND a.kind = 'update'
                    """)
                update.append(selection, binding: values)
                budget = update.query
            }
        } else if case .tokens(let tokens) = target {
            // Tokens given one by one are sent even when no device registered them, unless APNs retired them.
            let list = fanOut.bind(tokens)
            fanOut.append(
                """
                SELECT \(number) AS notification, u.token, NULL::text AS channel_id
                FROM unnest(\(list)::text[]) WITH ORDINALITY AS u(token, position)
                WHERE NOT EXISTS (
                    SELECT 1 FROM devices v WHERE v.app_id = \(appID) AND v.token = u.token AND NOT v.active)
                """)
            if requireKey {
                fanOut.append(
                    " AND EXISTS (SELECT 1 FROM devices v WHERE v.app_id = \(appID) AND v.token = u.token"
                        + " AND v.public_key IS NOT NULL)")
            }
            fanOut.append(" ORDER BY u.position")
        } else {
            fanOut.append(
                """
                SELECT \(number) AS notification, d.token, NULL::text AS channel_id
                FROM devices d WHERE d.app_id = \(appID) AND d.active
                """)
            Self.appendCondition(for: target, requireKey: requireKey, to: &fanOut)
        }
        let fanOutQuery = fanOut.query
        let targeted = try await transaction(within: Self.bulkStatementLimit) { [logger, budget] connection in
            try await connection.rows(
                """
                INSERT INTO notifications (id, app_id, target, payload, push_type, priority, expiration,
                    collapse_id, encrypted_key, encrypted, send_at, daily_at, created_at, trace_context, localized,
                    quiet_hours, variables, cap_category)
                VALUES (\(n.id), \(n.appID), \(n.target), \(n.payload), \(n.pushType), \(n.priority),
                    \(n.expiration), \(n.collapseID), \(n.encryptedKey), \(n.encrypted), \(n.sendAt), \(n.dailyAt),
                    \(n.createdAt), \(n.traceContext), \(n.localized), \(n.quietHours), \(n.variables),
                    \(n.capCategory))
                """, logger)
            guard n.dailyAt == nil else { return 0 }
            // A token of lower-case hex digits is kept as the bytes it spells (half its size; `delivery_view` and the
            // lease read it back as text). `OFFSET 0` keeps the subquery whole, so each token is matched once, not
            // once for each column (1,000,000 tokens: 2.9 s against 2.2 written as text; 2.6 s so). The deliveries
            // are queued by ranges of their numbers, due at the notification's send time: a lease writes a
            // delivery's queue row when it takes the delivery (``rangeSize``). The ranges are counted from the
            // fan-out's first number: cut at multiples of the range size, the first was short, and a lease of whole
            // ranges took one more to fill itself and queued most of it unleased, to be written again by the next.
            let wrapped = PostgresQuery(
                unsafeSQL: """
                    WITH selected AS (\(fanOutQuery.sql)),
                    written AS (
                        INSERT INTO deliveries (notification, token, token_bytes, channel_id)
                        SELECT notification, CASE WHEN hex THEN '' ELSE token END,
                            CASE WHEN hex THEN decode(token, 'hex') END, channel_id
                        FROM (SELECT *, token ~ '\(PostgresSchema.hexTokenPattern)' AS hex FROM selected OFFSET 0) s
                        RETURNING id, notification),
                    queued AS (
                        INSERT INTO delivery_ranges (notification, first_id, last_id, not_before)
                        SELECT notification, min(id), max(id), \(sendAt) FROM written
                        GROUP BY notification, (id - (SELECT min(id) FROM written)) / \(Self.rangeSize))
                    SELECT count(*) FROM written
                    """,
                binds: fanOutQuery.binds)
            let targeted = try await connection.rows(wrapped, logger).first?.decode(Int.self) ?? 0
            try await connection.rows("UPDATE notifications SET targeted = \(targeted) WHERE id = \(n.id)", logger)
            if let budget { try await connection.rows(budget, logger) }
            return targeted
        }
        // A large fan-out leaves the planner's statistics behind (autovacuum analyzes only a minute later); with
        // them stale it leased by sorting every queued row instead of walking the queue's index (when the fan-out
        // still wrote the queue), and a lease joins a range's deliveries by their numbers. SKIP_LOCKED: while
        // autovacuum vacuums the table, a waiting ANALYZE made PostgreSQL cancel it ("canceling autovacuum task"),
        // at every broadcast, so the table was never vacuumed and grew by its dead rows (a 30-day run: 7.8
        // million dead tuples and 3.1 GB by day 36). Autovacuum analyzes the table itself when it is done.
        if targeted >= Self.analyzeAfter {
            try await rows("ANALYZE (SKIP_LOCKED) deliveries, delivery_ranges", within: Self.bulkStatementLimit)
        }
        return targeted
    }

    /// Deliveries written at once above which the table's statistics are refreshed.
    package static let analyzeAfter = 10_000

    package func targetTokens(appID: String, target: NotificationTarget, requireKey: Bool) async throws(ProviderError)
        -> [String]
    {
        var statement = PostgresStatement()
        let app = statement.bind(appID)
        statement.append("SELECT d.token FROM devices d WHERE d.app_id = \(app) AND d.active")
        if case .tokens(let tokens) = target {
            let list = statement.bind(tokens)
            statement.append(" AND d.token = ANY(\(list))")
        }
        Self.appendCondition(for: target, requireKey: requireKey, to: &statement)
        let rows = try await rows(statement.query)
        do {
            return try rows.map { try $0.decode(String.self) }
        } catch {
            throw Self.failure(error)
        }
    }

    package func insertOccurrences(notificationID: String, appID: String, occurrence: String, times: [(String, Date)])
        async throws(ProviderError) -> Int
    {
        let tokens = times.map(\.0)
        let dates = times.map(\.1)
        return try await transaction { [logger] connection in
            let count =
                try await connection.rows(
                    """
                    WITH due AS (
                        SELECT DISTINCT ON (token) token, at
                        FROM unnest(\(tokens)::text[], \(dates)::timestamptz[]) WITH ORDINALITY AS u(token, at, position)
                        ORDER BY token, position),
                    written AS (
                        INSERT INTO deliveries (notification, token, occurrence)
                        SELECT n.number, due.token, \(occurrence)
                        FROM due JOIN notifications n ON n.id = \(notificationID) AND n.app_id = \(appID)
                        ON CONFLICT (notification, token, occurrence) WHERE occurrence <> '' DO NOTHING
                        RETURNING id, notification, token),
                    queued AS (
                        INSERT INTO delivery_queue (delivery_id, notification, not_before)
                        SELECT written.id, written.notification, due.at FROM written JOIN due USING (token))
                    SELECT count(*) FROM written
                    """, logger
                ).first?.decode(Int.self) ?? 0
            try await connection.rows(
                "UPDATE notifications SET targeted = targeted + \(count) WHERE id = \(notificationID)", logger)
            return count
        }
    }

    package func notification(id: String) async throws(ProviderError) -> StoredNotification? {
        try await notifications("SELECT * FROM notifications WHERE id = \(id)").first
    }

    package func notifications(appID: String, before: Date?, limit: Int) async throws(ProviderError)
        -> [StoredNotification]
    {
        try await notifications(
            """
            SELECT * FROM notifications WHERE app_id = \(appID) AND created_at < \(before ?? .distantFuture)
            ORDER BY created_at DESC LIMIT \(limit)
            """)
    }

    package func dailyNotifications() async throws(ProviderError) -> [StoredNotification] {
        try await notifications(
            "SELECT * FROM notifications WHERE daily_at IS NOT NULL AND cancelled_at IS NULL")
    }

    package func stats(notificationIDs ids: [String]) async throws(ProviderError) -> [String: NotificationReport.Stats]
    {
        guard !ids.isEmpty else { return [:] }
        let parts = try await rows(Self.statsQuery(ids))
        var targeted: [(String, Int)] = []
        var inFlight: [(String, Int)] = []
        var counters: [(String, (String, String, Int))] = []
        var actions: [(String, (String?, Int))] = []
        do {
            for row in parts {
                let (part, id, name, reason, n) = try row.decode((String, String, String?, String?, Int).self)
                switch part {
                case "targeted": targeted.append((id, n))
                case "inFlight": inFlight.append((id, n))
                case "counter": counters.append((id, (name ?? "", reason ?? "", n)))
                default: actions.append((id, (name, n)))
                }
            }
        } catch {
            throw Self.failure(error)
        }
        return NotificationReport.Stats.grouped(
            targeted: targeted, inFlight: inFlight, counters: counters, actions: actions)
    }

    /// The statistics of notifications `ids` as one statement (its first column names the part a row is), so one
    /// round trip: in a receipt storm each round trip waits for the provider's and the database's turn on the CPU.
    /// A lease sets its owner and its end together. The owner has no statistics (v3, v17), so the planner reads the
    /// small index of leased rows only when told, through the end's, that few rows are leased: without it, it
    /// counted them by reading the whole queue (68 ms a report in a 1,000,000-device broadcast, against 3).
    static func statsQuery(_ ids: [String]) -> PostgresQuery {
        """
        SELECT 'targeted', id, NULL, NULL, targeted FROM notifications WHERE id = ANY(\(ids))
        UNION ALL
        SELECT 'inFlight', n.id, NULL, NULL, count(*) FROM delivery_queue q JOIN notifications n ON n.number = q.notification
        WHERE q.lease_owner IS NOT NULL AND q.lease_until IS NOT NULL AND n.id = ANY(\(ids)) GROUP BY n.id
        UNION ALL
        SELECT 'counter', notification_id, name, reason, n FROM notification_counters WHERE notification_id = ANY(\(ids))
        UNION ALL
        SELECT 'action', notification_id, action, NULL, count(*) FROM feedback
        WHERE notification_id = ANY(\(ids)) AND event = 'action' GROUP BY notification_id, action
        """
    }

    /// Appends the conditions on a device row `d` that select a target's devices (beyond app and active).
    static func appendCondition(
        for target: NotificationTarget, requireKey: Bool, to statement: inout PostgresStatement
    ) {
        if requireKey { statement.append(" AND d.public_key IS NOT NULL") }
        switch target {
        case .tokens, .all: break
        case .activity, .activities, .channel, .widgets:
            // Live Activity and widget targets address their own tokens and channels, never the devices table.
            statement.append(" AND false")
        case .user(let user):
            let placeholder = statement.bind(user)
            statement.append(" AND d.user_id = \(placeholder)")
        case .tags(let expression):
            var tags: [String] = []
            let condition = expression.sql(arguments: &tags)
            statement.append(" AND ")
            statement.append(condition, binding: tags)
        }
    }

    private func notifications(_ query: PostgresQuery) async throws(ProviderError) -> [StoredNotification] {
        let rows = try await rows(query)
        do {
            return try rows.map { try Self.notification(from: $0.makeRandomAccess()) }
        } catch {
            throw Self.failure(error)
        }
    }

    private static func notification(from row: PostgresRandomAccessRow) throws -> StoredNotification {
        StoredNotification(
            id: try row.column("id"), appID: try row.column("app_id"), target: try row.column("target"),
            payload: try row.column("payload"), pushType: try row.column("push_type"),
            priority: try row.column("priority"), expiration: try row.column("expiration"),
            collapseID: try row.column("collapse_id"), encryptedKey: try row.column("encrypted_key"),
            encrypted: try row.column("encrypted"), sendAt: try row.column("send_at"),
            dailyAt: try row.column("daily_at"), targeted: try row.column("targeted"),
            createdAt: try row.column("created_at"), cancelledAt: try row.column("cancelled_at"),
            prunedAt: try row.column("pruned_at"), traceContext: try row.column("trace_context"),
            localized: try row.column("localized"),
            languageCounts: LanguageCounts.decode(try row.column("language_counts", as: String?.self)),
            quietHours: try row.column("quiet_hours"), variables: try row.column("variables"),
            capCategory: try row.column("cap_category"))
    }
}
