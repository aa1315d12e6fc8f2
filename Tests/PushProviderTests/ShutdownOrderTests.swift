import APNSCore
import APNSGateway
import Crypto
import Foundation
import GatewayTestSupport
import ProviderStorage
import ServiceLifecycle
import TestPacing
import Testing

@testable import PushProvider

@Suite("The provider's parts stop in order, even when one fails", .startsServers)
struct ShutdownOrderTests {
    struct PartFailed: Error {}

    @Test(
        "a part's failure stops the provider, and the engine puts back its leases before the store closes")
    func leasesPutBackOnFailure() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.run {
            // APNs five minutes away: the deliveries stay leased, waiting for the connection.
            let farAway = try LatencyProxy(targetPort: gateway.port, roundTripMilliseconds: 600_000)
            defer { farAway.stop() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("order-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = PushProviderService.Configuration(dataDirectory: directory)
            configuration.port = 0
            configuration.database = .sqlite
            let provider = try await PushProviderService(configuration: configuration, logger: ProviderHarness.logger)
            let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
            let (failure, fail) = AsyncStream.makeStream(of: Void.self)
            let failing = ClosureService {
                for await _ in failure { throw PartFailed() }
            }
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: try provider.services(onListening: { portSink.yield($0) }) + [.init(service: failing)],
                    logger: ProviderHarness.logger))
            let running = Task { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let base = "http://127.0.0.1:\(try #require(await iterator.next()))"
            var app = ProviderHarness.appBody(gateway)
            app["endpoint"] = "https://127.0.0.1:\(farAway.port)"
            let (_, created) = try await ProviderHarness.request(
                "POST", base + "/v1/apps", key: provider.adminToken, body: app)
            let key = try #require(created["apiKey"].string)
            let tokens = try (0..<3).map { _ in
                try gateway.server.registry.register(bundleID: ProviderHarness.bundleID, environment: .development)
                    .token.hex
            }
            let (_, notification) = try await ProviderHarness.request(
                "POST", base + "/v1/notifications", key: key,
                body: ["target": ["tokens": tokens], "content": ["body": "x"]])
            let id = try #require(notification["id"].string)
            // Leasing is a change the provider records: the report is read again after each.
            while true {
                let seen = provider.changesRecorded
                let (_, report) = try await ProviderHarness.request("GET", base + "/v1/notifications/\(id)", key: key)
                if report["stats"]["inFlight"].int == 3 { break }
                await provider.waitForChanges(after: seen, upTo: .seconds(20))
            }
            let failedAt = ContinuousClock.now
            fail.yield()
            // The engine's sends are cancelled: the client ends them at once (not at their 30 s deadline), and the
            // store stays open until the engine has put their leases back.
            await #expect(throws: PartFailed.self) { try await running.value }
            let took = ContinuousClock.now - failedAt
            #expect(took < .seconds(20), "the provider took \(took) to stop; its sends wait 30 s for a deadline")
            let store = try SQLiteStore(
                path: configuration.providerDirectory.appendingPathComponent("provider.sqlite").path,
                messageKey: .init(size: .bits256))
            defer { Task { await store.close() } }
            let stats = try #require(try await store.stats(notificationIDs: [id])[id])
            #expect(stats.inFlight == 0 && stats.queued == 3, "the leases were put back before the store closed")
        }
    }
}
