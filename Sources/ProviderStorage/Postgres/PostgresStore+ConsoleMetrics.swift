package import Foundation
import PostgresNIO

extension PostgresStore {
    package func addMetricSample(series: String, at: Date, sample: Data, keepingAfter: Date)
        async throws(ProviderError)
    {
        let text = String(decoding: sample, as: UTF8.self)
        try await transaction { [logger] connection in
            try await connection.rows(
                "DELETE FROM console_metric_samples WHERE series = \(series) AND at <= \(keepingAfter)", logger)
            try await connection.rows(
                "INSERT INTO console_metric_samples (series, at, sample) VALUES (\(series), \(at), \(text))", logger)
        }
    }

    package func metricSamples(series: String, since: Date) async throws(ProviderError) -> [Data] {
        let found = try await rows(
            "SELECT sample FROM console_metric_samples WHERE series = \(series) AND at > \(since) ORDER BY at")
        do {
            return try found.map { Data(try $0.decode(String.self).utf8) }
        } catch {
            throw Self.failure(error)
        }
    }
}
