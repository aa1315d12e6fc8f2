import Foundation

/// The Metrics page's charts drawn on the server, as the page's script draws them (`metrics.js`), so the last hour
/// reads before (or without) JavaScript: one line chart per series over the samples, and the rejections by reason.
enum MetricsCharts {
    /// The page's charts and rejections.
    static func content(_ samples: [MetricsHistory.Sample]) -> MetricsView {
        func rate(_ value: (MetricsHistory.Sample) -> Double) -> [(Date, Double)] {
            zip(samples, samples.dropFirst()).map { earlier, later in
                let seconds = later.at.timeIntervalSince(earlier.at)
                return (later.at, seconds > 0 ? max(0, (value(later) - value(earlier)) / seconds) : 0)
            }
        }
        let latency = zip(samples, samples.dropFirst()).map { earlier, later -> (Date, Double) in
            let count = later.latencyCount - earlier.latencyCount
            return (later.at, count > 0 ? 1000 * (later.latencySum - earlier.latencySum) / count : 0)
        }
        let charts = [
            chart("Notifications accepted by the API per second", "/s", rate(\.notifications)),
            chart("Sends accepted by APNs per second", "/s", rate(\.accepted)),
            chart("Sends rejected by APNs per second", "/s", rate { $0.rejected.values.reduce(0, +) }),
            chart("Queue depth", "deliveries", samples.map { ($0.at, $0.queueDepth) }),
            chart("Mean send latency", "ms", latency),
        ]
        let rejections = (samples.last?.rejected ?? [:]).sorted { $0.key < $1.key }.map {
            RejectionCount(reason: $0.key, count: String(Int($0.value)))
        }
        return MetricsView(charts: charts, rejections: rejections)
    }

    /// One chart: 560 × 140 with 30 of padding, the line scaled to the series' maximum.
    static func chart(_ title: String, _ unit: String, _ points: [(Date, Double)]) -> MetricsChart {
        let (width, height, pad) = (560.0, 140.0, 30.0)
        let top = max(1e-9, points.map(\.1).max() ?? 0)
        let t0 = points.first?.0 ?? Date(timeIntervalSince1970: 0)
        let span = max(1, (points.last?.0 ?? t0).timeIntervalSince(t0))
        let line = points.map { time, value in
            let x = pad + (width - 2 * pad) * (time.timeIntervalSince(t0) / span)
            let y = height - pad - (height - 2 * pad) * (value / top)
            return "\(Self.number(x)),\(Self.number(y))"
        }.joined(separator: " ")
        let latest = points.last.map { Self.number($0.1) } ?? "0"
        return MetricsChart(
            title: title, label: "\(title): latest \(latest) \(unit)", max: "max \(Self.number(top)) \(unit)",
            points: points.count > 1 ? line : nil)
    }

    private static func number(_ value: Double) -> String { String(format: "%.2f", value) }
}
