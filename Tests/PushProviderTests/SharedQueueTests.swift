import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import PushProvider
import TestPacing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs when `HERALD_TEST_POSTGRES` names a PostgreSQL database (as `.ci/run` sets it): the queue shared by two
/// provider processes exists only there.
@Suite("Two providers on one PostgreSQL database", .startsServers)
struct SharedQueueTests {
    static let onPostgres = !(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] ?? "").isEmpty

    @Test("two providers share one broadcast and send every delivery exactly once", .enabled(if: onPostgres))
    func sharedBroadcast() async throws {
        let devices = 3000
        try await ProviderHarness.with(configure: { $0.batchSize = 50 }) { harness in
            // Each provider sends at most 1,000 a second for the app, so one alone would need 3 s: the other joins.
            #expect(try await harness.call("PATCH", "/v1/apps/\(harness.appID)", body: ["rateLimit": 1000]).0 == 200)
            var tokens: [String] = []
            for _ in 0..<devices { tokens.append(try harness.gatewayToken()) }
            let (imported, _) = try await harness.call(
                "POST", "/v1/devices/import", body: ["devices": tokens.map { ["token": $0] }])
            #expect(imported == 200)
            // The second process: same data directory, so the same database schema and master key.
            let second = try await PushProviderService(
                configuration: harness.provider.configuration, logger: ProviderHarness.logger)
            let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
            let service = Task { try await second.run { port in portSink.yield(port) } }
            defer { service.cancel() }
            var iterator = ports.makeAsyncIterator()
            let secondPort = try #require(await iterator.next())

            let (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "to everyone"]])
            #expect(status == 202)
            let report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == devices)

            var receivedTwice = 0
            for token in tokens {
                let stored = try #require(
                    harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
                let entry = try #require(harness.gateway.server.store.log.entry(apnsID: stored.apnsID))
                if entry.events.filter({ $0.kind == .received }).count != 1 { receivedTwice += 1 }
            }
            #expect(receivedTwice == 0)
            let firstSent = try await Self.accepted(harness.baseURL)
            let secondSent = try await Self.accepted("http://127.0.0.1:\(secondPort)")
            #expect(firstSent + secondSent == devices)
            #expect(firstSent > 0 && secondSent > 0, "each provider sent some: \(firstSent) and \(secondSent)")
            service.cancel()
            _ = await service.result
        }
    }

    /// The provider's `herald_provider_sends_total{result="accepted"}` from `/metrics`, every push type together.
    static func accepted(_ baseURL: String) async throws -> Int {
        let (data, _) = try await URLSession.shared.data(from: URL(string: baseURL + "/metrics")!)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").filter {
            $0.hasPrefix("herald_provider_sends_total{") && $0.contains("result=\"accepted\"")
        }
        return lines.reduce(0) { $0 + Int(Double($1.split(separator: " ").last ?? "") ?? 0) }
    }
}
