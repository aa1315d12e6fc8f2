import Foundation
import HeraldTime
import PushProvider
import Synchronization

/// The provider's own metrics (its `/metrics` text), sampled every 10 seconds for the last hour, for the Metrics page.
final class MetricsHistory: Sendable {
    /// One sample: totals since the provider started, and the queue depth then.
    struct Sample: Encodable, Sendable {
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

    /// Samples until cancelled.
    func sample(provider: PushProviderService) async {
        let clock = provider.configuration.clock
        while !Task.isCancelled {
            let now = clock.currentDate
            record(Self.parse(await provider.metricsExposition(), at: now))
            try? await clock.sleep(until: now.adding(Self.interval))
        }
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
