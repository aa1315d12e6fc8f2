import Foundation
import PostgresNIO

/// What a notification written for each device needs: the devices' locales (its languages, counted at the fan-out and
/// read at the send) and attributes (its variables).
extension PostgresStore {
    package func deviceLocales(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String] {
        try await pairs(
            """
            SELECT token, locale FROM devices
            WHERE app_id = \(appID) AND token = ANY(\(tokens)) AND locale IS NOT NULL
            """)
    }

    package func targetLocales(appID: String, target: NotificationTarget, requireKey: Bool)
        async throws(ProviderError) -> [String: Int]
    {
        var statement = PostgresStatement()
        let app = statement.bind(appID)
        statement.append("SELECT coalesce(d.locale, ''), count(*) FROM devices d WHERE d.app_id = \(app) AND d.active")
        if case .tokens(let tokens) = target {
            let list = statement.bind(tokens)
            statement.append(" AND d.token = ANY(\(list))")
        }
        Self.appendCondition(for: target, requireKey: requireKey, to: &statement)
        statement.append(" GROUP BY 1")
        let rows = try await rows(statement.query)
        do {
            var counts: [String: Int] = [:]
            for row in rows {
                let (locale, count) = try row.decode((String, Int).self)
                counts[locale] = count
            }
            return counts
        } catch {
            throw Self.failure(error)
        }
    }

    package func setLanguageCounts(notificationID: String, counts: [String: Int]) async throws(ProviderError) {
        try await rows(
            "UPDATE notifications SET language_counts = \(LanguageCounts.encode(counts)) WHERE id = \(notificationID)")
    }
}

extension PostgresStore {
    package func deviceAttributes(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String] {
        try await pairs(
            """
            SELECT token, attributes FROM devices
            WHERE app_id = \(appID) AND token = ANY(\(tokens)) AND attributes IS NOT NULL
            """)
    }
}
