import Foundation
import HeraldTime
import PushProvider
import Testing

@testable import HeraldConsole

/// The Metrics page's last hour survives a restart: it is kept in the provider's database.
@Suite("The console's Metrics history across a restart")
struct MetricsHistoryTests {
    @Test("samples kept before a restart are shown after it; those older than the hour are not")
    func restart() async throws {
        let time = ManualClock(start: Date(timeIntervalSince1970: 2_000_000_000))
        var configuration = PushProviderService.Configuration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID())"))
        configuration.clock = time
        defer { try? FileManager.default.removeItem(at: configuration.dataDirectory) }
        func sample(_ notifications: Double) -> MetricsHistory.Sample {
            MetricsHistory.Sample(
                at: time.currentDate, notifications: notifications, accepted: notifications,
                rejected: ["BadDeviceToken": 1],
                queueDepth: 3, latencySum: 0.5, latencyCount: 10, unreachableApps: 0)
        }
        do {
            let provider = try await PushProviderService(configuration: configuration)
            let before = MetricsHistory()
            for count in 1...3 {
                await before.keep(sample(Double(count)), in: provider)
                time.advance(by: .seconds(1500))
            }
        }
        // Restarted 25 minutes after the last sample: the first is 75 minutes old, the last two are within the hour.
        let provider = try await PushProviderService(configuration: configuration)
        let after = MetricsHistory()
        await after.restore(from: provider)
        #expect(after.all.map(\.notifications) == [2, 3], "\(after.all.map(\.notifications))")
        #expect(after.all.last?.rejected == ["BadDeviceToken": 1])
    }
}
