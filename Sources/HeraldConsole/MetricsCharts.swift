import Foundation

/// The Metrics page's charts, drawn on the server (the page's script fetches the page again every 10 seconds and
/// swaps them in): one line chart per series over the last hour, with a time axis, the unit on the value axis, the
/// spans when APNs was unreachable shaded, and the rejections by reason.
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
        let outages = unreachable(samples)
        let charts = [
            chart(
                "Notifications accepted by the API per second", "per second", rate(\.notifications), outages: outages),
            chart("Sends accepted by APNs per second", "per second", rate(\.accepted), outages: outages),
            chart(
                "Sends rejected by APNs per second", "per second", rate { $0.rejected.values.reduce(0, +) },
                outages: outages),
            chart("Queue depth", "deliveries", samples.map { ($0.at, $0.queueDepth) }, outages: outages),
            chart("Mean send latency", "ms", latency, outages: outages),
        ]
        let rejections = (samples.last?.rejected ?? [:]).sorted { $0.key < $1.key }.map {
            RejectionCount(reason: $0.key, count: String(Int($0.value)))
        }
        return MetricsView(charts: charts, rejections: rejections, unreachable: !outages.isEmpty)
    }

    /// The chart's size and margins (SVG units; the page scales it to its column): room on the left for the value
    /// labels and below for the times.
    static let (width, height) = (400.0, 200.0)
    static let (left, right, top, bottom) = (52.0, 12.0, 28.0, 30.0)

    /// One chart of `points`, scaled to their highest value, with `outages` (from, to) shaded.
    static func chart(_ title: String, _ unit: String, _ points: [(Date, Double)], outages: [(Date, Date)] = [])
        -> MetricsChart
    {
        let (plotWidth, plotHeight) = (width - left - right, height - top - bottom)
        // A series that stayed at 0 is drawn on a scale of 0 to 1, not of 0 to nothing.
        let highest = (points.map(\.1).max() ?? 0) > 0 ? points.map(\.1).max() ?? 1 : 1
        let t0 = points.first?.0 ?? Date(timeIntervalSince1970: 0)
        let span = max(1, (points.last?.0 ?? t0).timeIntervalSince(t0))
        func x(_ time: Date) -> Double { left + plotWidth * min(1, max(0, time.timeIntervalSince(t0) / span)) }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - value / highest) }
        let line = points.map { time, value in "\(number(x(time))),\(number(y(value)))" }.joined(separator: " ")
        let latest = points.last.map { number($0.1) } ?? "0"
        guard points.count > 1 else {
            return MetricsChart(
                title: title, label: "\(title): latest \(latest) \(unit)", unit: unit, points: nil, values: [],
                times: [], outages: [],
                empty: "No data yet: a line needs two samples (every 10 s)")
        }
        let values = [0.0, 0.5, 1.0].map { share in
            AxisLabel(position: number(y(highest * share)), text: compact(highest * share), anchor: "end")
        }
        // The first time starts at the axis' start and the last ends at its end, so neither is cut off.
        let times = (0...3).map { step in
            let time = t0.addingTimeInterval(span * Double(step) / 3)
            return AxisLabel(
                position: number(x(time)), text: clock(time),
                anchor: step == 0 ? "start" : step == 3 ? "end" : "middle")
        }
        let shaded = outages.compactMap { from, to -> OutageSpan? in
            guard to > t0, from < t0.addingTimeInterval(span) else { return nil }
            let start = x(from)
            return OutageSpan(x: number(start), width: number(max(2, x(to) - start)))
        }
        return MetricsChart(
            title: title,
            label: "\(title): latest \(latest) \(unit)" + (shaded.isEmpty ? "" : "; APNs was unreachable for a while"),
            unit: unit, points: line, values: values, times: times, outages: shaded, empty: nil)
    }

    /// The spans when at least one app could not reach APNs: from the first sample that said so to the first that
    /// did not (or the last sample).
    static func unreachable(_ samples: [MetricsHistory.Sample]) -> [(Date, Date)] {
        var spans: [(Date, Date)] = []
        var start: Date?
        for sample in samples {
            if sample.unreachableApps > 0, start == nil { start = sample.at }
            if sample.unreachableApps == 0, let from = start {
                spans.append((from, sample.at))
                start = nil
            }
        }
        if let start, let last = samples.last { spans.append((start, last.at)) }
        return spans
    }

    private static func number(_ value: Double) -> String { String(format: "%.2f", value) }

    /// A value for an axis: 0, 0.25, 12.5, 950, 12k, 1.2M.
    static func compact(_ value: Double) -> String {
        switch value {
        case 1_000_000...: String(format: "%.1fM", value / 1_000_000)
        case 10_000...: String(format: "%.0fk", value / 1000)
        case 1000...: String(format: "%.1fk", value / 1000)
        case 10...: String(format: "%.0f", value)
        case 0: "0"
        default: String(format: "%.2g", value)
        }
    }

    /// `HH:MM:SS` in UTC, as the page's axis says.
    private static func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}
