package import Foundation
import GRDB

extension SQLiteStore {
    package func cancelNotification(id: String, at: Date) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: "UPDATE notifications SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL",
                arguments: [at.stored, id])
            try db.execute(
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.cancelled.sql), result_at = ?
                    WHERE \(Self.ofNotification) AND state = \(DeliveryState.queued.sql)
                    """, arguments: [at.stored, id])
            let cancelled = db.changesCount
            if cancelled > 0 { try Self.add([CounterKey(id, .cancelled): cancelled], db) }
            return cancelled
        }
    }

    package func updateUnsentNotification(_ notification: StoredNotification, dropOccurrences: Bool, now: Date)
        async throws(ProviderError) -> Bool
    {
        try await write { db in
            if notification.dailyAt == nil {
                // One write transaction: no worker leases between the check and the change.
                let sent = try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM deliveries WHERE \(Self.ofNotification)
                            AND (state != \(DeliveryState.queued.sql) OR attempts > 0))
                        """, arguments: [notification.id])
                guard sent == false else { return false }
                try db.execute(
                    sql: "UPDATE deliveries SET not_before = ? WHERE \(Self.ofNotification)",
                    arguments: [notification.sendAt.stored, notification.id])
            } else if dropOccurrences {
                try db.execute(
                    sql: """
                        DELETE FROM deliveries WHERE \(Self.ofNotification) AND state = \(DeliveryState.queued.sql)
                            AND attempts = 0 AND not_before > ?
                        """, arguments: [notification.id, now.stored])
                try db.execute(
                    sql: "UPDATE notifications SET targeted = targeted - ? WHERE id = ?",
                    arguments: [db.changesCount, notification.id])
            }
            try db.execute(
                sql: """
                    UPDATE notifications SET payload = ?, push_type = ?, priority = ?, expiration = ?, collapse_id = ?,
                        send_at = ?, daily_at = ?, localized = ?, variables = ?, quiet_hours = ?, cap_category = ?
                    WHERE id = ?
                    """,
                arguments: [
                    notification.payload, notification.pushType, notification.priority, notification.expiration,
                    notification.collapseID, notification.sendAt.stored, notification.dailyAt, notification.localized,
                    notification.variables, notification.quietHours, notification.capCategory, notification.id,
                ])
            return true
        }
    }

    package func resend(notificationID: String, reasons: [String], answered: ClosedRange<Date>, now: Date)
        async throws(ProviderError) -> Int
    {
        guard !reasons.isEmpty else { return 0 }
        let marks = Array(repeating: "?", count: reasons.count).joined(separator: ", ")
        return try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.queued.sql), attempts = 0, not_before = ?,
                        status = NULL, result_at = NULL
                    WHERE \(Self.ofNotification) AND state = \(DeliveryState.rejected.sql) AND reason IN (\(marks))
                        AND result_at BETWEEN ? AND ?
                    RETURNING reason
                    """,
                arguments: StatementArguments(
                    [now.stored, notificationID] as [(any DatabaseValueConvertible)?]
                        + reasons.map { $0 as (any DatabaseValueConvertible)? }
                        + [answered.lowerBound.stored, answered.upperBound.stored]))
            // Counted rejected when they gave up: no longer.
            let byReason = Dictionary(rows.map { ($0[0] as String? ?? "", 1) }, uniquingKeysWith: +)
            for (reason, count) in byReason {
                try db.execute(
                    sql: """
                        UPDATE notification_counters SET n = n - ?
                        WHERE notification_id = ? AND name = ? AND reason = ?
                        """, arguments: [count, notificationID, NotificationCounter.rejected.rawValue, reason])
            }
            return rows.count
        }
    }

    package func setPaused(appID: String, at: Date?) async throws(ProviderError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE apps SET paused_at = ?, pause_reason = NULL WHERE id = ?", arguments: [at?.stored, appID])
            return db.changesCount > 0
        }
    }

    package func pauseForCredentials(appID: String, reason: String, at: Date) async throws(ProviderError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE apps SET paused_at = ?, pause_reason = ? WHERE id = ? AND paused_at IS NULL",
                arguments: [at.stored, reason, appID])
            return db.changesCount > 0
        }
    }

    package func park(appID: String, reason: String, until: Date) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET not_before = ?, reason = ?
                    WHERE state = \(DeliveryState.queued.sql)
                        AND notification IN (SELECT number FROM notifications WHERE app_id = ?)
                    """, arguments: [until.stored, reason, appID])
            return db.changesCount
        }
    }

    package func deleteApp(id: String) async throws(ProviderError) -> AppDeletion? {
        // The app goes first (its API keys with it, so nothing adds to it meanwhile), then what is left of it.
        let removed = try await write { db -> (devices: Int, notifications: [(id: String, number: Int64)])? in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM apps WHERE id = ?)", arguments: [id]) == true
            else { return nil }
            let notifications = try Row.fetchAll(
                db, sql: "SELECT id, number FROM notifications WHERE app_id = ?", arguments: [id]
            ).map { (id: $0[0] as String, number: $0[1] as Int64) }
            let devices =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM devices WHERE app_id = ?", arguments: [id]) ?? 0
            try db.execute(sql: "DELETE FROM device_tags WHERE app_id = ?", arguments: [id])
            // Devices, keys, notifications, tokens and channels go with it (ON DELETE CASCADE).
            try db.execute(sql: "DELETE FROM apps WHERE id = ?", arguments: [id])
            return (devices, notifications)
        }
        guard let removed else { return nil }
        var deliveries = 0
        for notification in removed.notifications {
            deliveries += try await deleteRows(
                of: notification.id, number: notification.number, batch: Self.deletionBatch)
        }
        return AppDeletion(
            appID: id, devices: removed.devices, notifications: removed.notifications.count, deliveries: deliveries)
    }

    /// Rows deleted per transaction when an app's deliveries and reports go: small enough that the workers' writes
    /// wait milliseconds, not seconds, between two.
    static let deletionBatch = 5000

    /// `deliveries` rows of the notification whose id is the statement's next argument.
    static let ofNotification = "notification = (SELECT number FROM notifications WHERE id = ?)"

    /// Deletes every delivery, report and counter of a notification (its id and its number: the notification itself
    /// is gone), `batch` rows a transaction; the number of deliveries deleted.
    private func deleteRows(of notificationID: String, number: Int64, batch: Int) async throws(ProviderError) -> Int {
        var deleted: [String: Int] = [:]
        // Table and column names from this list only, never from input.
        for (table, column, key) in [
            ("deliveries", "notification", number.databaseValue),
            ("feedback", "notification_id", notificationID.databaseValue),
        ] {
            while true {
                let count = try await write { db in
                    try db.execute(
                        sql: """
                            DELETE FROM \(table) WHERE id IN (
                                SELECT id FROM \(table) WHERE \(column) = ? ORDER BY id LIMIT ?)
                            """, arguments: [key, batch])
                    return db.changesCount
                }
                deleted[table, default: 0] += count
                if count < batch { break }
            }
        }
        try await write { db in
            try db.execute(
                sql: "DELETE FROM notification_counters WHERE notification_id = ?", arguments: [notificationID])
        }
        return deleted["deliveries"] ?? 0
    }

}
