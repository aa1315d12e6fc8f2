import Foundation
import Testing

@testable import HeraldConsole

@Suite("The Metrics page's charts, drawn on the server")
struct MetricsChartsTests {
    static func sample(_ seconds: Double, notifications: Double, accepted: Double, rejected: Double)
        -> MetricsHistory.Sample
    {
        MetricsHistory.Sample(
            at: Date(timeIntervalSince1970: 1_790_000_000 + seconds), notifications: notifications, accepted: accepted,
            rejected: ["BadDeviceToken": rejected], queueDepth: 5, latencySum: accepted * 0.002,
            latencyCount: accepted)
    }

    @Test("rates per second between samples, scaled to the highest; the latest value in each chart's label")
    func rates() throws {
        let samples = [
            Self.sample(0, notifications: 0, accepted: 0, rejected: 0),
            Self.sample(10, notifications: 100, accepted: 90, rejected: 10),
            Self.sample(20, notifications: 300, accepted: 280, rejected: 20),
        ]
        let content = MetricsCharts.content(samples)
        let charts = content.charts
        #expect(charts.count == 5)
        #expect(charts[0].label == "Notifications accepted by the API per second: latest 20.00 per second")
        #expect(charts[0].unit == "per second")
        #expect(charts[0].values.map(\.text) == ["0", "10", "20"])
        #expect(charts[0].times.map(\.text) == ["14:13:30", "14:13:33", "14:13:36", "14:13:40"])
        // 10/s at the first point, 20/s (the top) at the second: half way up the plot, then its top.
        #expect(charts[0].points == "52.00,99.00 388.00,28.00")
        #expect(charts[0].empty == nil)
        #expect(charts[4].label == "Mean send latency: latest 2.00 ms")
        #expect(content.rejections == [RejectionCount(reason: "BadDeviceToken", count: "20")])
    }

    @Test("the spans when an app could not reach APNs are shaded, and only result=rejected counts as rejected")
    func outages() throws {
        var samples = (0..<6).map { Self.sample(Double($0) * 10, notifications: 0, accepted: 0, rejected: 0) }
        samples[2].unreachableApps = 1
        samples[3].unreachableApps = 1
        let chart = MetricsCharts.content(samples).charts[1]
        #expect(chart.outages.count == 1)
        #expect(chart.outages.first?.x == "136.00", "10 s into 40 s across 336: \(chart.outages)")
        #expect(chart.label.hasSuffix("APNs was unreachable for a while"))
        let parsed = MetricsHistory.parse(
            """
            herald_provider_sends_total{result="rejected",reason="BadDeviceToken"} 2
            herald_provider_sends_total{result="unreached",reason="ConnectionFailed"} 7
            herald_provider_apns_unreachable_apps 1
            """, at: Date())
        #expect(parsed.rejected == ["BadDeviceToken": 2])
        #expect(parsed.unreachableApps == 1)
    }

    @Test("one sample or none draws no line and says 0, never divides by zero")
    func empty() throws {
        for samples in [[], [Self.sample(0, notifications: 1, accepted: 1, rejected: 0)]] {
            let charts = MetricsCharts.content(samples).charts
            #expect(charts.allSatisfy { $0.points == nil && $0.empty?.contains("No data yet") == true })
            #expect(charts[0].label == "Notifications accepted by the API per second: latest 0 per second")
        }
    }
}
