import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import Synchronization
import Testing

@testable import PushProvider

/// The provider reads its time and waits on `Configuration.clock`: these tests move it instead of waiting for it.
@Suite("The provider's clock: sendAt and dailyAt are kept by the time it reads")
struct ProviderClockTests {
    @Test("a notification for later stays queued until the provider's clock reaches sendAt, then is sent")
    func sendAtFollowsTheClock() async throws {
        let clock = MovableTime(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await ProviderHarness.with(configure: { $0.clock = clock.clock }) { harness in
            let token = try harness.gatewayToken()
            let later = clock.read().addingTimeInterval(3600)
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
            clock.set(later.addingTimeInterval(1))
            let report = try await harness.finished(id, seconds: 20)
            #expect(report["stats"]["accepted"].int == 1)
            #expect(harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)) != nil)
        }
    }

    @Test("two apps' notifications due at the same moment are leased in one batch and each reaches its own device")
    func twoAppsInOneBatch() async throws {
        let clock = MovableTime(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await ProviderHarness.with(configure: { $0.clock = clock.clock }) { harness in
            let (status, other) = try await harness.call(
                "POST", "/v1/apps", key: harness.adminToken,
                body: ProviderHarness.appBody(harness.gateway, bundleID: "com.example.other"))
            #expect(status == 201)
            let otherKey = try #require(other["apiKey"].string)
            let due = Self.text(clock.read().addingTimeInterval(3600))
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
            clock.set(clock.read().addingTimeInterval(3601))
            for (id, token, key) in sent {
                let report = try await harness.finished(id, key: key, seconds: 20)
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
        let clock = MovableTime(start)
        try await ProviderHarness.with(configure: { $0.clock = clock.clock }) { harness in
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
            clock.set(start.addingTimeInterval(31))
            try await harness.until("Tokyo's 07:00 push reached the gateway", seconds: 20) {
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

/// A time a test sets: the provider reads it, and its waits end when the test moves it past their end (or, for a
/// wait the test never moves past, after as much real time, so the workers' short timers keep running).
final class MovableTime: Sendable {
    private struct State {
        var time: Date
        var sleepers: [UUID: (end: Date, continuation: CheckedContinuation<Void, Never>)] = [:]
        /// Tests waiting for a wait to begin.
        var watchers: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ start: Date) { state = Mutex(State(time: start)) }

    /// The time now, as the provider reads it.
    var read: @Sendable () -> Date { { [self] in state.withLock { $0.time } } }

    /// The provider's clock on this time.
    var clock: ProviderClock { ProviderClock(now: read, sleep: { [self] duration in try await sleep(duration) }) }

    /// Moves the time to `date`, ending every wait whose end it reaches.
    func set(_ date: Date) {
        let due = state.withLock { state in
            state.time = date
            let due = state.sleepers.filter { $0.value.end <= date }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once something waits on this time (at once if something does).
    func someoneWaits() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.sleepers.isEmpty else { return true }
                state.watchers.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Waits until the time is moved `duration` on, or `duration` of real time passes, whichever is first.
    func sleep(_ duration: Duration) async throws {
        let end = read().addingTimeInterval(
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.moved(past: end) }
            await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }

    private func moved(past end: Date) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (now, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    guard state.time < end, !Task.isCancelled else { return (true, []) }
                    state.sleepers[id] = (end, continuation)
                    defer { state.watchers = [] }
                    return (false, state.watchers)
                }
                if now { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
