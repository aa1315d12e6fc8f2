package import Foundation
import GRDB

/// The frequency caps' send log (``FrequencyCap``): which notification of a category went to whom, and when.
extension SQLiteStore {
    package func capSends(appID: String, category: String, subjects: [String], since: Date)
        async throws(ProviderError) -> [String: Set<String>]
    {
        try await read { db in
            var sends: [String: Set<String>] = [:]
            try Self.inLists(subjects) { part, marks in
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT subject, notification_id FROM cap_log
                        WHERE app_id = ? AND category = ? AND subject IN (\(marks)) AND at >= ?
                        """,
                    arguments: StatementArguments([appID, category] + part + [since.stored]))
                while let row = try rows.next() { sends[row[0], default: []].insert(row[1]) }
            }
            return sends
        }
    }

    package func recordCapSends(
        appID: String, category: String, notificationID: String, subjects: [String], at: Date
    ) async throws(ProviderError) {
        guard !subjects.isEmpty else { return }
        try await write { db in
            // 100 rows a statement: a broadcast in a capped category logs every device it reaches; in key order, so
            // each page of the log's key is read and written once a batch, not once a row.
            let sorted = subjects.sorted()
            for start in stride(from: 0, to: sorted.count, by: 100) {
                let part = sorted[start..<min(start + 100, sorted.count)]
                let rows = Array(repeating: "(?, ?, ?, ?, ?)", count: part.count).joined(separator: ", ")
                let insert = try db.cachedStatement(
                    sql: """
                        INSERT INTO cap_log (app_id, category, subject, notification_id, at) VALUES \(rows)
                        ON CONFLICT DO NOTHING
                        """)
                var arguments = StatementArguments()
                for subject in part {
                    arguments += [appID, category, subject, notificationID, at.stored]
                }
                try insert.execute(arguments: arguments)
            }
        }
    }

    package func pruneCapLog(before: Date, limit: Int) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM cap_log WHERE (app_id, category, subject, notification_id) IN (
                        SELECT app_id, category, subject, notification_id FROM cap_log WHERE at < ? LIMIT ?)
                    """, arguments: [before.stored, limit])
            return db.changesCount
        }
    }
}
