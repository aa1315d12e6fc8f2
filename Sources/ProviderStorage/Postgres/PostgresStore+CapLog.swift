package import Foundation
import PostgresNIO

/// The frequency caps' send log (``FrequencyCap``): which notification of a category went to whom, and when.
extension PostgresStore {
    package func capSends(appID: String, category: String, subjects: [String], since: Date)
        async throws(ProviderError) -> [String: Set<String>]
    {
        let rows = try await rows(
            """
            SELECT subject, notification_id FROM cap_log
            WHERE app_id = \(appID) AND category = \(category) AND subject = ANY(\(subjects)) AND at >= \(since)
            """)
        do {
            var sends: [String: Set<String>] = [:]
            for row in rows {
                let (subject, notification) = try row.decode((String, String).self)
                sends[subject, default: []].insert(notification)
            }
            return sends
        } catch {
            throw Self.failure(error)
        }
    }

    package func recordCapSends(
        appID: String, category: String, notificationID: String, subjects: [String], at: Date
    ) async throws(ProviderError) {
        guard !subjects.isEmpty else { return }
        try await rows(
            """
            INSERT INTO cap_log (app_id, category, subject, notification_id, at)
            SELECT \(appID), \(category), subject, \(notificationID), \(at) FROM unnest(\(subjects)::text[]) AS subject
            ORDER BY subject
            ON CONFLICT DO NOTHING
            """)
    }

    package func pruneCapLog(before: Date, limit: Int) async throws(ProviderError) -> Int {
        try await count(
            """
            WITH gone AS (
                DELETE FROM cap_log WHERE ctid IN (SELECT ctid FROM cap_log WHERE at < \(before) LIMIT \(limit))
                RETURNING 1)
            SELECT count(*) FROM gone
            """)
    }
}
