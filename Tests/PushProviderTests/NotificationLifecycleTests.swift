import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import HeraldTime
import ProviderStorage
import TestPacing
import Testing

@testable import PushProvider

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A notification's lifecycle after it was created (issue 47): cancel, change, resend; an app paused, resumed and
/// deleted. Each against a real gateway and provider, on SQLite and (with `HERALD_TEST_POSTGRES`) PostgreSQL.
@Suite("Cancel, change and resend a notification; pause, resume and delete an app", .startsServers)
struct NotificationLifecycleTests {
    private static func devices(_ harness: ProviderHarness, _ count: Int) async throws -> [String] {
        var tokens: [String] = []
        for _ in 0..<count {
            let token = try harness.gatewayToken()
            #expect(try await harness.call("POST", "/v1/devices", body: ["token": token]).0 == 201)
            tokens.append(token)
        }
        return tokens
    }

    private static func stored(_ harness: ProviderHarness, _ tokens: [String]) throws -> Int {
        try tokens.filter { harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: $0)) != nil }
            .count
    }

    @Test(
        "a scheduled notification is cancelled before its time: nothing is sent; cancelling again or a done one is 409")
    func cancelScheduled() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            let tokens = try await Self.devices(harness, 10)
            let later = clock.currentDate.addingTimeInterval(3600)
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["all": true], "content": ["body": "later"], "sendAt": ProviderClockTests.text(later),
                ])
            #expect(status == 202)
            let id = try #require(created["id"].string)
            let (cancelStatus, cancelled) = try await harness.call("DELETE", "/v1/notifications/\(id)")
            #expect(cancelStatus == 200, "\(cancelled)")
            #expect(cancelled["cancelled"].int == 10, "\(cancelled)")
            #expect(cancelled["notification"]["state"].string == "cancelled")
            #expect(cancelled["notification"]["stats"]["cancelled"].int == 10)
            #expect(cancelled["notification"]["stats"]["queued"].int == 0)
            let deliveries = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
            #expect(deliveries.allSatisfy { $0["verdict"]["verdict"].string == "cancelled" }, "\(deliveries)")
            let breakdown = try await harness.call("GET", "/v1/notifications/\(id)/breakdown").1
            #expect(breakdown["verdicts"].array.contains { $0["verdict"].string == "cancelled" }, "\(breakdown)")

            // Its time comes and goes: nothing is sent.
            clock.advance(to: later.addingTimeInterval(5))
            let other = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": tokens[0]], "content": ["body": "now"]]
            ).1
            let otherID = try #require(other["id"].string)
            _ = try await harness.finished(otherID)
            #expect(try Self.stored(harness, tokens) == 1, "only the second notification reached a device")

            let (again, second) = try await harness.call("DELETE", "/v1/notifications/\(id)")
            #expect(again == 409)
            #expect(second["error"]["message"].string?.contains("already cancelled") == true, "\(second)")
            let (done, doneAnswer) = try await harness.call("DELETE", "/v1/notifications/\(otherID)")
            #expect(done == 409)
            #expect(doneAnswer["error"]["message"].string?.contains("is done") == true, "\(doneAnswer)")
            let (missing, missingAnswer) = try await harness.call("DELETE", "/v1/notifications/NOPE")
            #expect(missing == 404)
            #expect(missingAnswer["error"]["code"].string == "not_found")
        }
    }

    @Test("a daily notification, cancelled, queues no further day")
    func cancelDaily() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            _ = try await Self.devices(harness, 3)
            let created = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["all": true], "content": ["body": "daily"], "dailyAt": "07:00"]
            ).1
            let id = try #require(created["id"].string)
            #expect(created["stats"]["targeted"].int == 3, "\(created)")
            let cancelled = try await harness.call("DELETE", "/v1/notifications/\(id)").1
            #expect(cancelled["cancelled"].int == 3, "\(cancelled)")
            #expect(cancelled["notification"]["state"].string == "cancelled")
            // Two days on: the scheduler ran and queued nothing for it.
            clock.advance(to: clock.currentDate.addingTimeInterval(2 * 86_400))
            await clock.waitForSleepers(1)
            clock.advance(to: clock.currentDate.addingTimeInterval(60))
            let report = try await harness.call("GET", "/v1/notifications/\(id)").1
            #expect(report["stats"]["targeted"].int == 3, "\(report)")
            #expect(report["state"].string == "cancelled")
        }
    }

    @Test(
        "PATCH changes a scheduled notification's content and time; the target, a sent one and a past time are refused")
    func changeScheduled() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            let tokens = try await Self.devices(harness, 3)
            let later = clock.currentDate.addingTimeInterval(3600)
            let id = try #require(
                try await harness.call(
                    "POST", "/v1/notifications",
                    body: [
                        "target": ["all": true], "content": ["body": "old"], "sendAt": ProviderClockTests.text(later),
                    ]
                ).1["id"].string)
            let sooner = clock.currentDate.addingTimeInterval(600)
            let (status, changed) = try await harness.call(
                "PATCH", "/v1/notifications/\(id)",
                body: ["content": ["title": "New", "body": "new"], "sendAt": ProviderClockTests.text(sooner)])
            #expect(status == 200, "\(changed)")
            #expect(changed["state"].string == "scheduled")
            let (targetStatus, target) = try await harness.call(
                "PATCH", "/v1/notifications/\(id)", body: ["target": ["user": "u1"]])
            #expect(targetStatus == 400)
            #expect(target["error"]["field"].string == "target", "\(target)")
            let (pastStatus, past) = try await harness.call(
                "PATCH", "/v1/notifications/\(id)",
                body: ["sendAt": ProviderClockTests.text(clock.currentDate.addingTimeInterval(-60))])
            #expect(pastStatus == 400)
            #expect(past["error"]["field"].string == "sendAt", "\(past)")
            let (badStatus, bad) = try await harness.call(
                "PATCH", "/v1/notifications/\(id)", body: ["priority": 7])
            #expect(badStatus == 400, "\(bad)")

            clock.advance(to: sooner.addingTimeInterval(1))
            _ = try await harness.finished(id)
            for token in tokens {
                let stored = try #require(
                    harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
                let payload = try JSONValue(parsing: Data(stored.payload))
                #expect(payload["aps"]?["alert"]?["body"]?.string == "new", "\(payload)")
            }
            let (sentStatus, sent) = try await harness.call(
                "PATCH", "/v1/notifications/\(id)", body: ["content": ["body": "too late"]])
            #expect(sentStatus == 409)
            #expect(sent["error"]["message"].string?.contains("done") == true, "\(sent)")
        }
    }

    @Test(
        "what gave up (APNs unreachable until it expired) is resent once: two resends at once send each delivery once")
    func resendGaveUp() async throws {
        try await ProviderHarness.with { harness in
            _ = try await Self.devices(harness, 12)
            try await harness.gateway.server.shutdown()
            let id = try #require(
                try await harness.call(
                    "POST", "/v1/notifications",
                    body: ["target": ["all": true], "content": ["body": "now or never"], "expiration": 0]
                ).1["id"].string)
            let gaveUp = try await harness.finished(id)
            #expect(gaveUp["stats"]["rejected"]["APNsUnreachable"].int == 12, "\(gaveUp)")
            let (wrongStatus, wrong) = try await harness.call(
                "POST", "/v1/notifications/\(id)/resend", body: ["reason": "BadDeviceToken"])
            #expect(wrongStatus == 400)
            #expect(wrong["error"]["field"].string == "reason", "\(wrong)")

            let back = try await TestGateway.start(directory: harness.gateway.directory, key: harness.gateway.key) {
                $0.port = harness.gateway.port
            }
            async let first = harness.call("POST", "/v1/notifications/\(id)/resend")
            async let second = harness.call("POST", "/v1/notifications/\(id)/resend", body: [String: Any]())
            let answers = try await [first, second]
            #expect(answers.allSatisfy { $0.0 == 200 }, "\(answers.map(\.1))")
            #expect(answers.compactMap { $0.1["resent"].int }.reduce(0, +) == 12, "\(answers.map(\.1))")
            let finished = try await harness.finished(id)
            #expect(finished["stats"]["accepted"].int == 12, "\(finished)")
            #expect(finished["stats"]["rejected"]["APNsUnreachable"].int ?? 0 == 0, "\(finished)")
            let deliveries = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
            #expect(deliveries.allSatisfy { $0["attempts"].int == 1 }, "\(deliveries.map { $0["attempts"].int })")
            // Expiration 0 is "now or never": APNs accepted each, and with the devices offline, stored none.
            let nothing = try await harness.call("POST", "/v1/apps/\(harness.appID)/resend").1
            #expect(nothing["resent"].int == 0, "\(nothing)")
            let (wide, tooWide) = try await harness.call(
                "POST", "/v1/apps/\(harness.appID)/resend",
                body: ["from": "1970-01-01T00:00:00Z", "to": "2026-01-01T00:00:00Z"])
            #expect(wide == 400)
            #expect(tooWide["error"]["message"].string?.contains("more than 31 days apart") == true, "\(tooWide)")
            try await back.server.shutdown()
        }
    }

    @Test("a paused app sends nothing and spends no attempt; resumed, everything goes out")
    func pauseAndResume() async throws {
        try await ProviderHarness.with { harness in
            let tokens = try await Self.devices(harness, 8)
            let (pauseStatus, paused) = try await harness.call("POST", "/v1/apps/\(harness.appID)/pause")
            #expect(pauseStatus == 200, "\(paused)")
            #expect(paused["app"]["pausedAt"].string != nil, "\(paused)")
            let (createStatus, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "paused"]])
            let id = try #require(created["id"].string)
            // Accepted, and told at once that nothing goes out until the app is resumed.
            #expect(createStatus == 202)
            let warning = created["warning"].string ?? ""
            #expect(warning.contains("is paused since") && warning.contains("herald apps resume"), "\(created)")
            try await harness.until("every delivery waits for the app to be resumed") {
                let deliveries = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
                return deliveries.count == 8 && deliveries.allSatisfy { $0["verdict"]["verdict"].string == "paused" }
            }
            let waiting = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
            #expect(waiting.allSatisfy { $0["attempts"].int == 0 })
            #expect(try Self.stored(harness, tokens) == 0)
            let (resumeStatus, resumed) = try await harness.call("POST", "/v1/apps/\(harness.appID)/resume")
            #expect(resumeStatus == 200, "\(resumed)")
            #expect(resumed["app"]["pausedAt"].isNull)
            let finished = try await harness.finished(id)
            #expect(finished["stats"]["accepted"].int == 8, "\(finished)")
            #expect(try Self.stored(harness, tokens) == 8)
        }
    }

    @Test(
        "deleting an app needs the admin token and removes it with its devices and notifications; its publishable key ends at once"
    )
    func deleteApp() async throws {
        try await ProviderHarness.with { harness in
            _ = try await Self.devices(harness, 4)
            let register = { (token: String) in
                try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: ["token": token]).0
            }
            #expect(try await register(try harness.gatewayToken()) == 201, "the key's app is now remembered")
            let id = try #require(
                try await harness.call(
                    "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "x"]]
                ).1["id"].string)
            _ = try await harness.finished(id)
            let (keyStatus, refused) = try await harness.call("DELETE", "/v1/apps/\(harness.appID)")
            #expect(keyStatus == 403, "\(refused)")
            let (status, deleted) = try await harness.call(
                "DELETE", "/v1/apps/\(harness.appID)", key: harness.adminToken)
            #expect(status == 200, "\(deleted)")
            #expect(try await register(try harness.gatewayToken()) == 401, "not a second later: at once")
            #expect(deleted["devices"].int == 5)
            #expect(deleted["notifications"].int == 1)
            #expect(deleted["deliveries"].int == 5)
            #expect(try await harness.call("GET", "/v1/apps/\(harness.appID)", key: harness.adminToken).0 == 404)
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").0 == 401, "its API key went with it")
            let (again, _) = try await harness.call("DELETE", "/v1/apps/\(harness.appID)", key: harness.adminToken)
            #expect(again == 404)
        }
    }

    @Test("a broadcast stopped while it sends: what was queued is cancelled and counted, nothing more goes out")
    func stopInProgress() async throws {
        try await ProviderHarness.with { harness in
            let tokens = try await Self.devices(harness, 60)
            let id = try await Self.slowBroadcastSending(harness)
            // The whole broadcast is leased at once and paced by the rate limit: what is not written yet stops too.
            let (status, cancelled) = try await harness.call("DELETE", "/v1/notifications/\(id)")
            #expect(status == 200, "\(cancelled)")
            try await harness.until("nothing is in flight or queued") {
                let stats = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
                return stats["inFlight"].int == 0 && stats["queued"].int == 0
            }
            let report = try await harness.call("GET", "/v1/notifications/\(id)").1
            let accepted = try #require(report["stats"]["accepted"].int)
            let stopped = try #require(report["stats"]["cancelled"].int)
            #expect(stopped > 30 && accepted + stopped == 60, "\(report)")
            #expect(report["state"].string == "cancelled")
            #expect(try Self.stored(harness, tokens) == accepted, "exactly the accepted ones reached devices")
            // What the workers withheld and cancelled after their batch is counted like what the queue held.
            let metrics = try await harness.metrics()
            #expect(metrics.contains("herald_provider_deliveries_cancelled_total \(stopped)"), "\(metrics)")
        }
    }

    @Test(
        "a paused app stops its broadcast being sent: what is leased and not written waits, paused here or by another provider; resumed, the rest goes",
        arguments: [true, false])
    func pauseInProgress(throughThisProvider: Bool) async throws {
        try await ProviderHarness.with { harness in
            let tokens = try await Self.devices(harness, 60)
            let id = try await Self.slowBroadcastSending(harness)
            if throughThisProvider {
                #expect(try await harness.call("POST", "/v1/apps/\(harness.appID)/pause").0 == 200)
            } else {
                // Another provider on the same database paused it: this one sees it in the store.
                #expect(try await harness.provider.store.setPaused(appID: harness.appID, at: Date()))
            }
            try await harness.until("nothing is in flight") {
                try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["inFlight"].int == 0
            }
            let paused = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
            let accepted = try #require(paused["accepted"].int)
            #expect(accepted < 50, "the leased batch stopped within a second of the pause: \(paused)")
            #expect(paused["queued"].int == 60 - accepted, "\(paused)")
            #expect(try Self.stored(harness, tokens) == accepted)
            #expect(try await harness.call("POST", "/v1/apps/\(harness.appID)/resume").0 == 200)
            let done = try await harness.finished(id)
            #expect(done["stats"]["accepted"].int == 60, "\(done)")
            #expect(try Self.stored(harness, tokens) == 60, "each device got it once")
        }
    }

    @Test("an app deleted while it sends: the answer says what went, the provider goes on, nothing of it is left")
    func deleteWhileSending() async throws {
        try await ProviderHarness.with { harness in
            _ = try await Self.devices(harness, 40)
            _ = try await Self.slowBroadcastSending(harness)
            let (status, deleted) = try await harness.call(
                "DELETE", "/v1/apps/\(harness.appID)", key: harness.adminToken)
            #expect(status == 200, "\(deleted)")
            #expect(deleted["deliveries"].int == 40, "\(deleted)")
            // The provider goes on: another app is made and sends.
            let (made, other) = try await harness.call(
                "POST", "/v1/apps", key: harness.adminToken,
                body: ProviderHarness.appBody(harness.gateway, bundleID: "com.example.after"))
            #expect(made == 201, "\(other)")
            let key = try #require(other["apiKey"].string)
            let token = try harness.gatewayToken(bundleID: "com.example.after")
            let sent = try await harness.call(
                "POST", "/v1/notifications", key: key, body: ["target": ["token": token], "content": ["body": "x"]]
            ).1
            let finished = try await harness.finished(try #require(sent["id"].string), key: key)
            #expect(finished["stats"]["accepted"].int == 1, "\(finished)")
            var request = URLRequest(url: URL(string: harness.baseURL + "/metrics")!)
            request.setValue("Bearer \(harness.adminToken)", forHTTPHeaderField: "Authorization")
            let metrics = String(decoding: try await URLSession.shared.data(for: request).0, as: UTF8.self)
            #expect(metrics.contains("herald_provider_queue_depth 0"), "nothing of the deleted app waits: \(metrics)")
        }
    }

    @Test("a route that does not exist answers JSON naming it, not an empty 404")
    func unknownRoute() async throws {
        try await ProviderHarness.with { harness in
            let (status, answer) = try await harness.call("PUT", "/v1/notifications/X")
            #expect(status == 404)
            #expect(
                answer["error"]["message"].string?.contains("no route PUT /v1/notifications/X") == true, "\(answer)")
        }
    }

    /// A broadcast to all the app's devices paced at 10 a second, once APNs has accepted its first: its ID.
    private static func slowBroadcastSending(_ harness: ProviderHarness) async throws -> String {
        #expect(try await harness.call("PATCH", "/v1/apps/\(harness.appID)", body: ["rateLimit": 10]).0 == 200)
        let id = try #require(
            try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "slow"]]
            ).1["id"].string)
        try await harness.until("the broadcast is sending") {
            try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["accepted"].int ?? 0 > 0
        }
        return id
    }
}
