import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import HeraldTime
import Synchronization
import TestPacing
import Testing

@testable import PushProvider

/// The provider reads its time and waits on `Configuration.clock`: these tests move it instead of waiting for it.
@Suite("The provider's clock: sendAt and dailyAt are kept by the time it reads", .startsServers)
struct ProviderClockTests {
    @Test("a notification for later stays queued until the provider's clock reaches sendAt, then is sent")
    func sendAtFollowsTheClock() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            let token = try harness.gatewayToken()
            let later = clock.currentDate.addingTimeInterval(3600)
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["token": token], "content": ["body": "later"], "sendAt": Self.text(later)])
            #expect(status == 202)
            #expect(created["state"].string == "scheduled")
            let id = try #require(created["id"].string)
            let (_, deliveries) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries")
            #expect(deliveries[0]["state"].string == "queued")
            #expect(deliveries[0]["notBefore"].string == Self.text(later))
            // An hour passes for the provider; for the test, no time at all.
            clock.advance(to: later.addingTimeInterval(1))
            let report = try await harness.finished(id)
            #expect(report["stats"]["accepted"].int == 1)
            #expect(harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)) != nil)
        }
    }

    @Test("two apps' notifications due at the same moment are leased in one batch and each reaches its own device")
    func twoAppsInOneBatch() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            let (status, other) = try await harness.call(
                "POST", "/v1/apps", key: harness.adminToken,
                body: ProviderHarness.appBody(harness.gateway, bundleID: "com.example.other"))
            #expect(status == 201)
            let otherKey = try #require(other["apiKey"].string)
            let due = Self.text(clock.currentDate.addingTimeInterval(3600))
            var sent: [(id: String, token: String, key: String?)] = []
            for (bundleID, key) in [(ProviderHarness.bundleID, nil), ("com.example.other", otherKey)] {
                for _ in 0..<3 {
                    let token = try harness.gatewayToken(bundleID: bundleID)
                    let (_, created) = try await harness.call(
                        "POST", "/v1/notifications", key: key,
                        body: ["target": ["token": token], "content": ["body": bundleID], "sendAt": due])
                    sent.append((try #require(created["id"].string), token, key))
                }
            }
            clock.advance(to: clock.currentDate.addingTimeInterval(3601))
            for (id, token, key) in sent {
                let report = try await harness.finished(id, key: key)
                #expect(report["stats"]["accepted"].int == 1, "\(report)")
                let stored = harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token))
                #expect(stored?.topic == (key == nil ? ProviderHarness.bundleID : "com.example.other"))
            }
        }
    }

    @Test("daily at 07:00: each device's occurrence is due at 07:00 in its own zone, and sent when that time comes")
    func dailyAtLocalTime() async throws {
        // 06:59:30 in Tokyo (UTC+9, no daylight saving): 21:59:30 UTC the day before.
        let start = try Date("2030-03-10T21:59:30Z", strategy: .iso8601)
        let clock = ManualClock(start: start, realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            let tokyo = try harness.gatewayToken()
            let utc = try harness.gatewayToken()
            _ = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": tokyo, "timeZone": "Asia/Tokyo"])
            _ = try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: ["token": utc])
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["all": true], "content": ["title": "Good morning"], "dailyAt": "07:00"])
            #expect(status == 202)
            let id = try #require(created["id"].string)
            let (_, deliveries) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries")
            let due = Dictionary(
                uniqueKeysWithValues: (0..<2).map {
                    (deliveries[$0]["token"].string ?? "", deliveries[$0]["notBefore"].string ?? "")
                })
            #expect(due[tokyo] == "2030-03-10T22:00:00.000Z", "07:00 in Tokyo")
            #expect(due[utc] == "2030-03-11T07:00:00.000Z", "07:00 UTC, for a device with no time zone")
            clock.advance(to: start.addingTimeInterval(31))
            try await harness.until("Tokyo's 07:00 push reached the gateway") {
                harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: tokyo)) != nil
            }
            #expect(harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: utc)) == nil)
            let (_, tokyoTrace) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries")
            let states = Dictionary(
                uniqueKeysWithValues: (0..<2).map {
                    (tokyoTrace[$0]["token"].string ?? "", tokyoTrace[$0]["state"].string ?? "")
                })
            #expect(states[utc] == "queued", "UTC's 07:00 is nine hours later")
        }
    }

    static func text(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
