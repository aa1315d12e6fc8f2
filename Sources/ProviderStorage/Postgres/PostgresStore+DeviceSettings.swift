import Foundation
import PostgresNIO

/// What a notification written for each device needs: the devices' settings (locale, time zone, attributes), read at the
/// send, and their locales counted by language at the fan-out.
extension PostgresStore {
    package func deviceSettings(appID: String, tokens: [String]) async throws(ProviderError)
        -> [String: DeviceSettings]
    {
        let rows = try await rows(
            """
            SELECT d.token, d.locale, d.time_zone, d.attributes, d.user_id, u.attributes
            FROM devices d LEFT JOIN user_attributes u ON u.app_id = d.app_id AND u.user_id = d.user_id
            WHERE d.app_id = \(appID) AND d.token = ANY(\(tokens))
                AND (d.locale IS NOT NULL OR d.time_zone IS NOT NULL OR d.attributes IS NOT NULL
                    OR d.user_id IS NOT NULL)
            """)
        do {
            var found: [String: DeviceSettings] = [:]
            for row in rows {
                let (token, locale, zone, attributes, user, userAttributes) = try row.decode(
                    (String, String?, String?, String?, String?, String?).self)
                found[token] = DeviceSettings(
                    locale: locale, timeZone: zone, attributes: attributes, userID: user,
                    userAttributes: userAttributes)
            }
            return found
        } catch {
            throw Self.failure(error)
        }
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

    package func setLanguageCounts(notificationID: String, counts: [String: Int]?) async throws(ProviderError) {
        let stored = counts.map(LanguageCounts.encode)
        try await rows("UPDATE notifications SET language_counts = \(stored) WHERE id = \(notificationID)")
    }
}
