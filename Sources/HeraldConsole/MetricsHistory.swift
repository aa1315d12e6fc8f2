import Foundation
import HeraldTime
import ProviderStorage
import PushProvider
import Synchronization

/// The provider's own metrics (its `/metrics` text), sampled every 10 seconds for the last hour, for the Metrics page;
/// each sample is kept in the provider's database too (``ConsoleMetricStore``), so a restart shows the hour before it.
final class MetricsHistory: Sendable {
    /// One sample: totals since the provider started, and the queue depth then.
    struct Sample: Codable, Sendable {
        var at: Date
        var notifications: Double
        var accepted: Double
        /// Rejected sends by reason.
        var rejected: [String: Double]
        var queueDepth: Double
        /// Sum and count of the send latency histogram (seconds).
        var latencySum: Double
        var latencyCount: Double
        /// Apps that could not reach APNs at that moment.
        var unreachableApps: Double = 0
    }

    static let interval: Duration = .seconds(10)
    static let capacity = 360

    private let samples = Mutex<[Sample]>([])

    /// Samples until cancelled, after the samples of the last hour this provider kept before.
    func sample(provider: PushProviderService) async {
        await restore(from: provider)
        let clock = provider.configuration.clock
        while !Task.isCancelled {
            let now = clock.currentDate
            await keep(Self.parse(await provider.metricsExposition(), at: now), in: provider)
            try? await clock.sleep(until: now.adding(Self.interval))
        }
    }

    /// Puts back the samples of the last hour that this provider kept in its database before it (re)started.
    func restore(from provider: PushProviderService) async {
        let since = provider.configuration.clock.currentDate.addingTimeInterval(-Self.kept)
        guard
            let stored = try? await provider.consoleMetricStore.metricSamples(
                series: Self.series(of: provider), since: since)
        else { return }
        let decoder = JSONDecoder()
        let earlier = stored.compactMap { try? decoder.decode(Sample.self, from: $0) }
        samples.withLock { samples in
            samples = Array((earlier + samples).suffix(Self.capacity))
        }
    }

    /// Keeps `sample` in memory and in the provider's database (a database that does not answer loses only the
    /// restart's view of it).
    func keep(_ sample: Sample, in provider: PushProviderService) async {
        record(sample)
        guard let data = try? JSONEncoder().encode(sample) else { return }
        try? await provider.consoleMetricStore.addMetricSample(
            series: Self.series(of: provider), at: sample.at, sample: data,
            keepingAfter: sample.at.addingTimeInterval(-Self.kept))
    }

    /// How long samples are kept: the page's hour.
    static var kept: TimeInterval { Double(capacity) * Double(interval.components.seconds) }

    /// The name of this provider's samples: its host and data folder, the same across its restarts, different for
    /// every provider on one database.
    static func series(of provider: PushProviderService) -> String {
        "\(ProcessInfo.processInfo.hostName):\(provider.configuration.providerDirectory.path)"
    }

    /// Keeps `sample`, dropping the oldest beyond an hour.
    func record(_ sample: Sample) {
        samples.withLock { samples in
            samples.append(sample)
            if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
        }
    }

    /// The samples kept, oldest first.
    var all: [Sample] { samples.withLock { $0 } }

    /// Reads the few series the page draws from Prometheus' text format.
    static func parse(_ text: String, at date: Date) -> Sample {
        var sample = Sample(
            at: date, notifications: 0, accepted: 0, rejected: [:], queueDepth: 0, latencySum: 0, latencyCount: 0)
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            let series = line[..<space]
            let name = series.prefix { $0 != "{" }
            switch name {
            case "herald_provider_notifications_total": sample.notifications = value
            case "herald_provider_queue_depth": sample.queueDepth = value
            case "herald_provider_apns_unreachable_apps": sample.unreachableApps = value
            case "herald_provider_send_latency_seconds_sum": sample.latencySum = value
            case "herald_provider_send_latency_seconds_count": sample.latencyCount = value
            case "herald_provider_sends_total":
                if series.contains(#"result="accepted""#) {
                    sample.accepted += value
                } else if series.contains(#"result="rejected""#), let reason = label("reason", in: series) {
                    // `unreached` and `unanswered` are not APNs' rejections: APNs never answered them.
                    sample.rejected[reason, default: 0] += value
                }
            default: break
            }
        }
        return sample
    }

    private static func label(_ name: String, in series: Substring) -> String? {
        guard let start = series.range(of: "\(name)=\"") else { return nil }
        let rest = series[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
