package import Foundation
import GRDB

extension SQLiteStore {
    package func insertNotification(_ notification: StoredNotification, target: NotificationTarget, requireKey: Bool)
        async throws(ProviderError) -> Int
    {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO notifications (id, app_id, target, payload, push_type, priority, expiration,
                        collapse_id, encrypted_key, encrypted, send_at, daily_at, created_at, trace_context, localized,
                        quiet_hours, variables, cap_category)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    notification.id, notification.appID, notification.target, notification.payload,
                    notification.pushType, notification.priority, notification.expiration, notification.collapseID,
                    notification.encryptedKey, notification.encrypted, notification.sendAt.stored,
                    notification.dailyAt, notification.createdAt.stored, notification.traceContext,
                    notification.localized, notification.quietHours, notification.variables,
                    notification.capCategory,
                ])
            guard notification.dailyAt == nil else { return 0 }
            let number = db.lastInsertedRowID
            var arguments: [(any DatabaseValueConvertible)?] = [number, notification.sendAt.stored, notification.appID]
            let condition = Self.condition(for: target, requireKey: requireKey, arguments: &arguments)
            let targeted: Int
            if case .channel(let channel) = target {
                // One broadcast: APNs fans it out.
                try db.execute(
                    sql: """
                        INSERT INTO deliveries (notification, not_before, token, channel_id) VALUES (?, ?, '', ?)
                        """,
                    arguments: [number, notification.sendAt.stored, channel])
                targeted = 1
            } else if let (selection, values) = target.activitySelection {
                try db.execute(
                    sql: """
                        INSERT INTO deliveries (notification, not_before, token)
                        SELECT ?, ?, compact_token(a.token) FROM activity_tokens a WHERE a.app_id = ?\(selection)
                        ORDER BY a.token
                        """,
                    arguments: StatementArguments(
                        [number, notification.sendAt.stored, notification.appID]
                            + values.map { $0 as (any DatabaseValueConvertible)? }))
                targeted = db.changesCount
                if notification.priority != 5 {
                    let hourAgo = notification.createdAt.addingTimeInterval(-3600).stored
                    try db.execute(
                        sql: """
                            UPDATE activity_tokens AS a SET
                                budget_used = CASE WHEN budget_hour_start > ? THEN budget_used + 1 ELSE 1 END,
                                budget_hour_start = CASE WHEN budget_hour_start > ? THEN budget_hour_start ELSE ? END
                            WHERE a.app_id = ? AND a.kind = 'update'\(selection)
                            """,
                        arguments: StatementArguments(
                            [hourAgo, hourAgo, notification.createdAt.stored, notification.appID]
                                + values.map { $0 as (any DatabaseValueConvertible)? }))
                }
            } else if case .tokens(let tokens) = target {
                // Tokens given one by one are sent even when no device registered them, unless APNs retired them.
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT INTO deliveries (notification, not_before, token)
                        SELECT ?, ?, ? WHERE NOT EXISTS (
                            SELECT 1 FROM devices WHERE app_id = ? AND token = ? AND active = 0)
                        \(requireKey ? "AND EXISTS (SELECT 1 FROM devices WHERE app_id = ? AND token = ? AND public_key IS NOT NULL)" : "")
                        """)
                var count = 0
                for token in tokens {
                    var values: [(any DatabaseValueConvertible)?] = [
                        number, notification.sendAt.stored, CompactText.token(token), notification.appID, token,
                    ]
                    if requireKey { values += [notification.appID, token] }
                    try statement.execute(arguments: StatementArguments(values))
                    count += db.changesCount
                }
                targeted = count
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO deliveries (notification, not_before, token)
                        SELECT ?, ?, compact_token(d.token) FROM devices d WHERE d.app_id = ? AND d.active = 1 \(condition)
                        ORDER BY d.rowid
                        """, arguments: StatementArguments(arguments))
                targeted = db.changesCount
            }
            try db.execute(
                sql: "UPDATE notifications SET targeted = ? WHERE number = ?", arguments: [targeted, number])
            return targeted
        }
    }

    package func targetTokens(appID: String, target: NotificationTarget, requireKey: Bool) async throws(ProviderError)
        -> [String]
    {
        let (condition, arguments) = Self.activeDevices(appID: appID, target: target, requireKey: requireKey)
        let sql = "SELECT d.token FROM devices d WHERE \(condition)"
        return try await read { db in try String.fetchAll(db, sql: sql, arguments: arguments) }
    }

    /// The condition on `devices d` of the app's active devices `target` selects (tokens named one by one among
    /// them), with its arguments.
    static func activeDevices(appID: String, target: NotificationTarget, requireKey: Bool) -> (
        String, StatementArguments
    ) {
        var arguments: [(any DatabaseValueConvertible)?] = [appID]
        let condition: String
        if case .tokens(let tokens) = target {
            let marks = Array(repeating: "?", count: tokens.count).joined(separator: ",")
            condition = " AND d.token IN (\(marks))" + (requireKey ? " AND d.public_key IS NOT NULL" : "")
            arguments += tokens
        } else {
            condition = Self.condition(for: target, requireKey: requireKey, arguments: &arguments)
        }
        return ("d.app_id = ? AND d.active = 1 \(condition)", StatementArguments(arguments))
    }

    package func insertOccurrences(notificationID: String, appID: String, occurrence: String, times: [(String, Date)])
        async throws(ProviderError) -> Int
    {
        try await write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO deliveries (notification, token, occurrence, not_before)
                    VALUES (?, ?, ?, ?)
                    """)
            guard
                let number = try Int64.fetchOne(
                    db, sql: "SELECT number FROM notifications WHERE id = ? AND app_id = ?",
                    arguments: [notificationID, appID])
            else { return 0 }
            var count = 0
            for (token, time) in times {
                try statement.execute(arguments: [number, CompactText.token(token), occurrence, time.stored])
                count += db.changesCount
            }
            try db.execute(
                sql: "UPDATE notifications SET targeted = targeted + ? WHERE id = ?",
                arguments: [count, notificationID])
            return count
        }
    }

    package func notification(id: String) async throws(ProviderError) -> StoredNotification? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM notifications WHERE id = ?", arguments: [id]).map(
                Self.notification(from:))
        }
    }

    package func notifications(appID: String, before: Date?, limit: Int) async throws(ProviderError)
        -> [StoredNotification]
    {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM notifications WHERE app_id = ? AND created_at < ?
                    ORDER BY created_at DESC LIMIT ?
                    """,
                arguments: [appID, (before ?? .distantFuture).stored, limit]
            ).map(Self.notification(from:))
        }
    }

    package func dailyNotifications() async throws(ProviderError) -> [StoredNotification] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM notifications WHERE daily_at IS NOT NULL AND cancelled_at IS NULL"
            ).map(
                Self.notification(from:))
        }
    }

    package func stats(notificationIDs ids: [String]) async throws(ProviderError) -> [String: NotificationReport.Stats]
    {
        guard !ids.isEmpty else { return [:] }
        let list = "(" + Array(repeating: "?", count: ids.count).joined(separator: ", ") + ")"
        let arguments = StatementArguments(ids)
        return try await read { db in
            let targeted = try Row.fetchAll(
                db, sql: "SELECT id, targeted FROM notifications WHERE id IN \(list)", arguments: arguments)
            let inFlight = try Row.fetchAll(db, sql: Self.inFlightSQL(count: ids.count), arguments: arguments)
            let counters = try Row.fetchAll(
                db,
                sql:
                    "SELECT notification_id, name, reason, n FROM notification_counters WHERE notification_id IN \(list)",
                arguments: arguments)
            let actions = try Row.fetchAll(db, sql: Self.actionCountsSQL(count: ids.count), arguments: arguments)
            return NotificationReport.Stats.grouped(
                targeted: targeted.map { ($0["id"], $0["targeted"]) },
                inFlight: inFlight.map { ($0["notification_id"], $0["n"]) },
                counters: counters.map { ($0["notification_id"], ($0["name"], $0["reason"], $0["n"])) },
                actions: actions.map { ($0["notification_id"], ($0["action"], $0["n"])) })
        }
    }

    /// Counts the action taps of `count` notifications, per action. It must read the partial index of responses (taps,
    /// dismissals, actions), which are few: the index on `notification_id` alone also holds every delivered and
    /// displayed report, and walking a 100,000-device broadcast's 200,000 of them took 48 ms each time its report was
    /// read (0.2 ms through the responses). SQLite uses a partial index only when the query repeats its condition.
    package static func actionCountsSQL(count: Int) -> String {
        """
        SELECT notification_id, action, count(*) AS n FROM feedback INDEXED BY feedback_responses
        WHERE notification_id IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))
            AND event IN ('opened', 'dismissed', 'action') AND event = 'action'
        GROUP BY 1, 2
        """
    }

    /// Counts the leased deliveries of `count` notifications. It must read the small index of leased rows: given the
    /// choice, SQLite walks `deliveries_by_notification`, every delivery of a million-device broadcast, each time
    /// History or a progress poll asks (which made a watched broadcast 28% slower).
    package static func inFlightSQL(count: Int) -> String {
        """
        SELECT n.id AS notification_id, c.n FROM (
            SELECT notification, count(*) AS n FROM deliveries INDEXED BY deliveries_leased
            WHERE state = \(DeliveryState.leased.sql) AND notification IN (
                SELECT number FROM notifications WHERE id IN (\(Array(repeating: "?", count: count).joined(separator: ", "))))
            GROUP BY 1) c
        JOIN notifications n ON n.number = c.notification
        """
    }

    /// The SQL after `WHERE d.app_id = ? AND d.active = 1` that selects a target's devices.
    static func condition(
        for target: NotificationTarget, requireKey: Bool, arguments: inout [(any DatabaseValueConvertible)?]
    ) -> String {
        var sql = requireKey ? " AND d.public_key IS NOT NULL" : ""
        switch target {
        case .tokens: break
        case .user(let user):
            sql += " AND d.user_id = ?"
            arguments.append(user)
        case .tags(let expression):
            var tags: [String] = []
            sql += " AND " + expression.sql(arguments: &tags)
            arguments += tags.map { $0 as (any DatabaseValueConvertible)? }
        case .all: break
        case .activity, .activities, .channel, .widgets:
            // Live Activity and widget targets address their own tokens and channels, never the devices table.
            sql += " AND 0"
        }
        return sql
    }

    static func notification(from row: Row) -> StoredNotification {
        StoredNotification(
            id: row["id"], appID: row["app_id"], target: row["target"], payload: row["payload"],
            pushType: row["push_type"], priority: row["priority"], expiration: row["expiration"],
            collapseID: row["collapse_id"], encryptedKey: row["encrypted_key"], encrypted: row["encrypted"],
            sendAt: Date(stored: row["send_at"]), dailyAt: row["daily_at"], targeted: row["targeted"],
            createdAt: Date(stored: row["created_at"]),
            cancelledAt: (row["cancelled_at"] as Double?).map(Date.init(stored:)),
            prunedAt: (row["pruned_at"] as Double?).map(Date.init(stored:)), traceContext: row["trace_context"],
            localized: row["localized"], languageCounts: LanguageCounts.decode(row["language_counts"]),
            quietHours: row["quiet_hours"], variables: row["variables"], capCategory: row["cap_category"])
    }
}
