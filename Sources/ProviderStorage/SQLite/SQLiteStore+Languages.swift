import Foundation
import GRDB

/// What a notification written for each device needs: the devices' locales (its languages, counted at the fan-out and
/// read at the send) and attributes (its variables).
extension SQLiteStore {
    package func deviceLocales(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String] {
        try await column("locale", appID: appID, tokens: tokens)
    }

    package func targetLocales(appID: String, target: NotificationTarget, requireKey: Bool)
        async throws(ProviderError) -> [String: Int]
    {
        var arguments: [(any DatabaseValueConvertible)?] = [appID]
        let condition: String
        if case .tokens(let tokens) = target {
            let marks = Array(repeating: "?", count: tokens.count).joined(separator: ",")
            condition = " AND d.token IN (\(marks))" + (requireKey ? " AND d.public_key IS NOT NULL" : "")
            arguments += tokens
        } else {
            condition = Self.condition(for: target, requireKey: requireKey, arguments: &arguments)
        }
        let sql = """
            SELECT coalesce(d.locale, ''), count(*) FROM devices d WHERE d.app_id = ? AND d.active = 1 \(condition)
            GROUP BY 1
            """
        let statementArguments = StatementArguments(arguments)
        return try await read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: sql, arguments: statementArguments) { counts[row[0]] = row[1] }
            return counts
        }
    }

    package func setLanguageCounts(notificationID: String, counts: [String: Int]) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE notifications SET language_counts = ? WHERE id = ?",
                arguments: [LanguageCounts.encode(counts), notificationID])
        }
    }
}

extension SQLiteStore {
    package func deviceAttributes(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String] {
        try await column("attributes", appID: appID, tokens: tokens)
    }
}
