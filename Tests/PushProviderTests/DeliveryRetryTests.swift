import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import PushProvider
import TestPacing
import Testing

@Suite("Provider retries through the gateway: how often, how soon, how the app slows down", .startsServers)
struct DeliveryRetryTests {
    @Test("503 from APNs is retried with backoff until accepted; a final reason is not retried")
    func retries() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            let parsed = try APNSDeviceToken(hex: token)
            harness.gateway.server.faults.add(
                .init(effect: .answer(status: 503, reason: .serviceUnavailable), count: 3, token: parsed))
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": token], "content": ["body": "x"]])
            let report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == 1)
            harness.gateway.server.faults.add(
                .init(effect: .answer(status: 400, reason: .badTopic), count: 1, token: parsed))
            let (_, second) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": token], "content": ["body": "x"]])
            let final = try await harness.finished(try #require(second["id"].string))
            #expect(final["stats"]["rejected"]["BadTopic"].int == 1)
        }
    }

    @Test("under a permanent 500 a notification reaches APNs at most 4 times in all, client and engine together")
    func oneRetryDecision() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            harness.gateway.server.faults.add(
                .init(
                    effect: .answer(status: 500, reason: .internalServerError), count: 100,
                    token: try APNSDeviceToken(hex: token)))
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": token], "content": ["body": "x"]])
            let id = try #require(created["id"].string)
            let report = try await harness.finished(id)
            #expect(report["stats"]["rejected"]["InternalServerError"].int == 1)
            let delivery = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1[0]
            #expect(delivery["attempts"].int == 4)
            #expect(delivery["verdict"]["verdict"].string == "gaveUp", "\(delivery)")
            #expect(delivery["verdict"]["sentence"].string?.hasPrefix("sent 4 times") == true, "\(delivery)")
            let apnsIDText = try #require(delivery["apnsID"].string)
            let apnsID = try #require(UUID(uuidString: apnsIDText))
            let entry = try #require(harness.gateway.server.store.log.entry(apnsID: apnsID))
            let sends = entry.events.filter { $0.kind == .rejected }.count
            #expect(sends == 4, "APNs saw \(sends) sends (before: up to 20)")
        }
    }

    @Test("when APNs answers a whole chunk 503, the app's next notifications wait instead of following at full speed")
    func stormSlowsTheApp() async throws {
        try await ProviderHarness.with(configure: {
            $0.workers = 1; $0.batchSize = 50
        }) { harness in
            var tokens: [String] = []
            for _ in 0..<150 { tokens.append(try harness.gatewayToken()) }
            let (imported, _) = try await harness.call(
                "POST", "/v1/devices/import", body: ["devices": tokens.map { ["token": $0] }])
            #expect(imported == 200)
            harness.gateway.server.faults.add(
                .init(effect: .answer(status: 503, reason: .serviceUnavailable), count: 50))
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "x"]])
            let report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == 150)
            var refused: [Date] = []
            var received: [Date] = []
            for (_, entry) in harness.gateway.server.store.log.entries(after: -1, limit: 10_000).entries {
                for event in entry.events where event.kind == .rejected { refused.append(event.time) }
                for event in entry.events where event.kind == .received { received.append(event.time) }
            }
            #expect(refused.count == 50)
            let storm = try #require(refused.max())
            let afterStorm = received.filter { $0 > storm }
            let next = try #require(afterStorm.min())
            #expect(
                next.timeIntervalSince(storm) >= 0.9,
                "the next notification went \(next.timeIntervalSince(storm)) s after 50 answers of 503 (before: at once)"
            )
        }
    }
}
