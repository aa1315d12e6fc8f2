package import Foundation

/// Where the console keeps its Metrics page's last hour, so a restart does not lose it: one series of samples per
/// provider (several providers on one database each keep their own).
package protocol ConsoleMetricStore: Sendable {
    /// Stores one sample (the console's JSON of it) of `series` taken `at`, and drops that series' samples taken before
    /// `keepingAfter`.
    func addMetricSample(series: String, at: Date, sample: Data, keepingAfter: Date) async throws(ProviderError)
    /// The samples of `series` taken after `since`, oldest first.
    func metricSamples(series: String, since: Date) async throws(ProviderError) -> [Data]
}
