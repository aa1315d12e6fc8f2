package import Foundation
import GRDB

extension SQLiteStore {
    package func addMetricSample(series: String, at: Date, sample: Data, keepingAfter: Date)
        async throws(ProviderError)
    {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM console_metric_samples WHERE series = ? AND at <= ?",
                arguments: [series, keepingAfter.stored])
            try db.execute(
                sql: "INSERT INTO console_metric_samples (series, at, sample) VALUES (?, ?, ?)",
                arguments: [series, at.stored, sample])
        }
    }

    package func metricSamples(series: String, since: Date) async throws(ProviderError) -> [Data] {
        try await read { db in
            try Data.fetchAll(
                db, sql: "SELECT sample FROM console_metric_samples WHERE series = ? AND at > ? ORDER BY at",
                arguments: [series, since.stored])
        }
    }
}
