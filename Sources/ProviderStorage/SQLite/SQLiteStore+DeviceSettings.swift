import Foundation
import GRDB

/// What a notification written for each device needs: the devices' settings (locale, time zone, attributes), read at the
/// send, and their locales counted by language at the fan-out.
extension SQLiteStore {
    package func deviceSettings(appID: String, tokens: [String]) async throws(ProviderError)
        -> [String: DeviceSettings]
    {
        try await read { db in
            var found: [String: DeviceSettings] = [:]
            try Self.inLists(tokens) { part, marks in
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT d.token, d.locale, d.time_zone, d.attributes, d.user_id, u.attributes
                        FROM devices d
                        LEFT JOIN user_attributes u ON u.app_id = d.app_id AND u.user_id = d.user_id
                        WHERE d.app_id = ? AND d.token IN (\(marks))
                            AND (d.locale IS NOT NULL OR d.time_zone IS NOT NULL OR d.attributes IS NOT NULL
                                OR d.user_id IS NOT NULL)
                        """,
                    arguments: StatementArguments([appID] + part))
                while let row = try rows.next() {
                    found[row[0]] = DeviceSettings(
                        locale: row[1], timeZone: row[2], attributes: row[3], userID: row[4],
                        userAttributes: row[5])
                }
            }
            return found
        }
    }

    package func targetLocales(appID: String, target: NotificationTarget, requireKey: Bool)
        async throws(ProviderError) -> [String: Int]
    {
        let (condition, arguments) = Self.activeDevices(appID: appID, target: target, requireKey: requireKey)
        let sql = "SELECT coalesce(d.locale, ''), count(*) FROM devices d WHERE \(condition) GROUP BY 1"
        return try await read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) { counts[row[0]] = row[1] }
            return counts
        }
    }

    package func setLanguageCounts(notificationID: String, counts: [String: Int]?) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE notifications SET language_counts = ? WHERE id = ?",
                arguments: [counts.map(LanguageCounts.encode), notificationID])
        }
    }
}
