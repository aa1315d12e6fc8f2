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
        #expect(charts[0].label == "Notifications accepted by the API per second: latest 20.00 /s")
        #expect(charts[0].max == "max 20.00 /s")
        // 10/s at the first point, 20/s (the top) at the second: from the bottom half way up, then to the top.
        #expect(charts[0].points == "30.00,70.00 530.00,30.00")
        #expect(charts[4].label == "Mean send latency: latest 2.00 ms")
        #expect(content.rejections == [RejectionCount(reason: "BadDeviceToken", count: "20")])
    }

    @Test("one sample or none draws no line and says 0, never divides by zero")
    func empty() throws {
        for samples in [[], [Self.sample(0, notifications: 1, accepted: 1, rejected: 0)]] {
            let charts = MetricsCharts.content(samples).charts
            #expect(charts.allSatisfy { $0.points == nil })
            #expect(charts[0].label == "Notifications accepted by the API per second: latest 0 /s")
        }
    }
}
