import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import PushProvider
import TestPacing
import Testing

@Suite("Provider deliveries through the gateway", .startsServers)
struct DeliveryTests {
    @Test("a broadcast reaches every active device once; each gets its own apns-id")
    func broadcast() async throws {
        try await ProviderHarness.with { harness in
            var tokens: [String] = []
            for index in 0..<200 {
                let token = try harness.gatewayToken()
                tokens.append(token)
                _ = try await harness.call(
                    "POST", "/v1/devices", key: harness.publishableKey,
                    body: ["token": token, "tags": index.isMultiple(of: 2) ? ["even"] : ["odd"]])
            }
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["all": true], "content": ["title": "Hello", "body": "everyone"]])
            #expect(status == 202)
            #expect(created["stats"]["targeted"].int == 200)
            let id = try #require(created["id"].string)
            let report = try await harness.finished(id)
            #expect(report["stats"]["accepted"].int == 200)
            let stored = tokens.compactMap { token in
                harness.gateway.server.store.storedNotification(for: try! APNSDeviceToken(hex: token))
            }
            #expect(stored.count == 200)
            #expect(Set(stored.map(\.apnsID)).count == 200)
            // Each apns-id leads back to its own delivery of this notification, and to no other.
            for notification in stored.prefix(5) {
                let (status, trace) = try await harness.call("GET", "/v1/deliveries/\(notification.apnsID.uuidString)")
                #expect(status == 200 && trace["notificationID"].string == id)
                #expect(trace["token"].string == notification.token.hex)
            }
        }
    }

    @Test("a notification's deliveries and each delivery's trace, and History paged with a cursor")
    func deliveryTraces() async throws {
        try await ProviderHarness.with { harness in
            var tokens: [String] = []
            for _ in 0..<3 {
                let token = try harness.gatewayToken()
                tokens.append(token)
                _ = try await harness.call("POST", "/v1/devices", body: ["token": token])
            }
            let (_, first) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": tokens[0]], "content": ["body": "first"]])
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["tokens": tokens], "content": ["body": "x"]])
            let id = try #require(created["id"].string)
            _ = try await harness.finished(id)
            let (status, deliveries) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries")
            #expect(status == 200)
            #expect(deliveries.array.count == 3)
            #expect(Set(deliveries.array.compactMap { $0["token"].string }) == Set(tokens))
            let apnsID = try #require(deliveries[0]["apnsID"].string)
            let (_, rest) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries?after=\(apnsID)")
            #expect(rest.array.count == 2)
            let (traceStatus, trace) = try await harness.call("GET", "/v1/deliveries/\(apnsID)")
            #expect(traceStatus == 200)
            #expect(trace["notificationID"].string == id && trace["state"].string == "accepted")
            #expect(trace["status"].int == 200 && trace["answeredAt"].string != nil && trace["attempts"].int == 1)
            let unknown = String(apnsID.prefix(24)) + "0000000FFFFF"
            #expect(try await harness.call("GET", "/v1/deliveries/\(unknown)").0 == 404)
            #expect(try await harness.call("GET", "/v1/deliveries/not-a-uuid").0 == 400)
            let (_, newest) = try await harness.call("GET", "/v1/notifications?limit=1")
            #expect(newest[0]["id"].string == id)
            let cursor = try #require(newest[0]["createdAt"].string)
            let (_, older) = try await harness.call("GET", "/v1/notifications?limit=1&before=\(cursor)")
            #expect(older[0]["id"].string == first["id"].string)
            #expect(try await harness.call("GET", "/v1/notifications?before=yesterday").0 == 400)
        }
    }

    @Test("targets: one token, a user, a tag expression")
    func targets() async throws {
        try await ProviderHarness.with { harness in
            var tokens: [String] = []
            for (index, tags) in [["sports"], ["sports", "news"], ["news"], []].enumerated() {
                let token = try harness.gatewayToken()
                tokens.append(token)
                _ = try await harness.call(
                    "POST", "/v1/devices", body: ["token": token, "tags": tags, "userID": index < 2 ? "alice" : "bob"])
            }
            func targeted(_ target: [String: Any]) async throws -> Int? {
                let (_, answer) = try await harness.call(
                    "POST", "/v1/notifications", body: ["target": target, "content": ["body": "x"]])
                return answer["stats"]["targeted"].int
            }
            #expect(try await targeted(["token": tokens[0]]) == 1)
            #expect(try await targeted(["user": "alice"]) == 2)
            #expect(try await targeted(["tags": "sports && !news"]) == 1)
            #expect(try await targeted(["tags": "sports || news"]) == 3)
            #expect(try await targeted(["tags": "not (sports or news)"]) == 1)
            let (status, answer) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["tags": "sports &&"], "content": ["body": "x"]])
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "target.tags")
        }
    }

    @Test("what APNs would reject is refused at the API, naming the field")
    func validation() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            let cases: [([String: Any], String)] = [
                (["target": ["token": token], "content": ["body": String(repeating: "x", count: 5000)]], "payload"),
                (["target": ["token": token], "content": ["body": "x"], "priority": 7], "priority"),
                (
                    [
                        "target": ["token": token], "content": ["body": "x"],
                        "collapseID": String(repeating: "c", count: 65),
                    ], "collapseID"
                ),
                (["target": ["token": token, "all": true], "content": ["body": "x"]], "target"),
                (["target": ["token": token]], "content"),
                (["target": ["token": token], "content": ["body": "x"], "dailyAt": "25:00"], "dailyAt"),
                (
                    ["target": ["token": token], "payload": ["aps": ["alert": "x"]], "content": ["body": "x"]],
                    "payload"
                ),
            ]
            for (body, field) in cases {
                let (status, answer) = try await harness.call("POST", "/v1/notifications", body: body)
                #expect(status == 400, "\(field)")
                #expect(answer["error"]["field"].string?.hasPrefix(field) == true, "\(answer)")
            }
        }
    }

    @Test("410 Unregistered deactivates the token with APNs' time; a newer registration brings it back")
    func unregistered() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            _ = try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: ["token": token])
            let removedAt = Date()
            try harness.gateway.server.registry.invalidate(try APNSDeviceToken(hex: token), at: removedAt)
            let (_, first) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": token], "content": ["body": "x"]])
            let report = try await harness.finished(try #require(first["id"].string))
            #expect(report["stats"]["rejected"]["Unregistered"].int == 1)
            let (_, device) = try await harness.call("GET", "/v1/devices/\(token)")
            #expect(device["active"].bool == false)
            #expect(device["deactivationReason"].string == "Unregistered")
            let (_, skipped) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "x"]])
            #expect(skipped["stats"]["targeted"].int == 0)
            let (_, back) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": token])
            #expect(back["active"].bool == true)
            let other = try harness.gatewayToken()
            _ = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": other, "tags": ["news"]])
            _ = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": token, "tags": ["news"]])
            try harness.gateway.server.registry.invalidate(try APNSDeviceToken(hex: token), at: Date() + 1)
            let (_, again) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": token], "content": ["body": "x"]])
            _ = try await harness.finished(try #require(again["id"].string))
            for (query, expected) in [
                ("active=false", [token]), ("active=true", [other]), ("tag=news&active=false", [token]),
                ("tag=news&active=true", [other]), ("tag=news", [token, other].sorted()),
            ] {
                let (status, page) = try await harness.call("GET", "/v1/devices?\(query)")
                #expect(status == 200)
                #expect(page.array.map { $0["token"].string } == expected, "\(query)")
            }
            let (status, refused) = try await harness.call("GET", "/v1/devices?active=maybe")
            #expect(status == 400)
            #expect(refused["error"]["field"].string == "active")
        }
    }

    @Test("a notification scheduled for later waits in the queue")
    func scheduled() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            let later = Date().addingTimeInterval(3600).formatted(.iso8601)
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["token": token], "content": ["body": "x"], "sendAt": later])
            #expect(created["state"].string == "scheduled")
            #expect(created["stats"]["queued"].int == 1)
        }
    }

    @Test("daily at a local time: one delivery per device at that time in its own time zone")
    func daily() async throws {
        try await ProviderHarness.with { harness in
            for zone in ["Asia/Shanghai", "America/New_York"] {
                _ = try await harness.call(
                    "POST", "/v1/devices", key: harness.publishableKey,
                    body: ["token": try harness.gatewayToken(), "timeZone": zone])
            }
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["all": true], "content": ["title": "Good morning"], "dailyAt": "07:00"])
            #expect(status == 202)
            #expect(created["dailyAt"].string == "07:00")
            #expect(created["stats"]["queued"].int == 2)
        }
    }

    @Test("a new notification wakes idle workers at once, not at their next poll")
    func newWorkWakesWorkers() async throws {
        try await ProviderHarness.with(configure: { $0.pollInterval = .seconds(120) }) { harness in
            let token = try harness.gatewayToken()
            // Let the workers find the queue empty and go idle first.
            #expect(try await harness.call("GET", "/healthz").0 == 200)
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": token], "content": ["body": "now"]])
            let report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == 1)
        }
    }

    @Test("feedback with another app's key is refused and records nothing")
    func feedbackFromAnotherApp() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let (_, other) = try await harness.call(
                "POST", "/v1/apps", key: harness.adminToken,
                body: ProviderHarness.appBody(harness.gateway, bundleID: "com.example.other"))
            let otherKey = try #require(other["app"]["publishableKey"].string)
            let report = ["event": "displayed", "apnsID": apnsID, "token": token]
            let (status, _) = try await harness.call("POST", "/v1/feedback", key: otherKey, body: report)
            #expect(status == 404)
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["displayed"].int == 0)
            let (own, _) = try await harness.call("POST", "/v1/feedback", key: harness.publishableKey, body: report)
            #expect(own == 202)
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["displayed"].int == 1)
        }
    }

    @Test("a push reported only displayed (shown in the foreground, no service extension) is shown and nothing else")
    func displayedOnly() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let report = ["event": "displayed", "apnsID": apnsID, "token": token]
            #expect(try await harness.call("POST", "/v1/feedback", key: harness.publishableKey, body: report).0 == 202)
            let (_, breakdown) = try await harness.call("GET", "/v1/notifications/\(id)/breakdown")
            let verdicts = breakdown["verdicts"].array.map { "\($0["verdict"].string ?? "?") \($0["count"].int ?? 0)" }
            #expect(verdicts == ["shown 1"], "\(breakdown)")
            #expect(breakdown["undecided"].int == 0, "\(breakdown)")
            let stats = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
            #expect(stats["delivered"].int == 1 && stats["displayed"].int == 1, "\(stats)")
        }
    }

    @Test(
        "U+0000 in a reply, an action, an outcome's detail or a collapse ID is refused naming the field, on both stores"
    )
    func nulInFeedbackAndCollapseID() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            for (field, event) in [
                ("text", ["event": "action", "action": "reply", "text": "see\u{0}you"]),
                ("action", ["event": "action", "action": "re\u{0}ply"]),
                ("detail", ["event": "outcome", "outcome": "extensionTimeout", "detail": "\u{0}"]),
            ] {
                let report = event.merging(["apnsID": apnsID, "token": token]) { first, _ in first }
                let (status, answer) = try await harness.call(
                    "POST", "/v1/feedback", key: harness.publishableKey, body: report)
                #expect(status == 400 && answer["error"]["field"].string == field, "\(answer)")
            }
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["actions"]["reply"].int == nil)
            let (status, answer) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["token": token], "content": ["body": "hi"], "collapseID": "score\u{0}"])
            #expect(status == 400 && answer["error"]["field"].string == "collapseID", "\(answer)")
        }
    }

    @Test(
        "a device reporting the same event twice counts once; a reply counts once, its text replaced; one answer per delivery"
    )
    func repeatedFeedback() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            for event: [String: Any] in [
                ["event": "delivered"], ["event": "delivered"], ["event": "displayed"],
                ["event": "action", "action": "reply", "text": "first"],
                ["event": "action", "action": "reply", "text": "second"],
            ] {
                let report = event.merging(["apnsID": apnsID, "token": token]) { first, _ in first }
                #expect(
                    try await harness.call("POST", "/v1/feedback", key: harness.publishableKey, body: report).0 == 202)
            }
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["opened"].int == 0)
            // Answered with an action: a tap on the same notification cannot come after it (iOS removes it).
            for event: [String: Any] in [["event": "response", "action": "default"], ["event": "opened"]] {
                let report = event.merging(["apnsID": apnsID, "token": token]) { first, _ in first }
                let (status, answer) = try await harness.call(
                    "POST", "/v1/feedback", key: harness.publishableKey, body: report)
                #expect(status == 409, "\(answer)")
                #expect(answer["error"]["message"].string?.contains("answered already (action reply)") == true)
            }
            let stats = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
            #expect(stats["targeted"].int == 1)
            #expect(stats["accepted"].int == 1)
            #expect(stats["queued"].int == 0)
            #expect(stats["delivered"].int == 1)
            #expect(stats["displayed"].int == 1)
            #expect(stats["opened"].int == 0)
            #expect(stats["replies"].int == 1)
            #expect(stats["actions"]["reply"].int == 1, "one delivery answered with one action counts once")
            let trace = try await harness.call("GET", "/v1/deliveries/\(apnsID)").1
            #expect(trace["reply"].string == "second", "a reply sent again replaces the text: \(trace)")
        }
    }

    @Test(
        "receipts are facts: a time varied by a millisecond counts nothing again, one answer per delivery, times outside the window are kept in it and said so"
    )
    func receiptsAreFacts() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            func report(_ event: [String: Any]) async throws -> (Int, JSON) {
                try await harness.call(
                    "POST", "/v1/feedback", key: harness.publishableKey,
                    body: event.merging(["apnsID": apnsID, "token": token]) { first, _ in first })
            }
            let now = Date()
            // The same action 50 times, each a millisecond later: the first is recorded, every other one repeated.
            for step in 0..<50 {
                let time = now.addingTimeInterval(Double(step) / 1000).iso8601Milliseconds
                let (status, answer) = try await report(["event": "action", "action": "like", "time": time])
                #expect(status == 202, "\(answer)")
                #expect(answer["repeated"].bool == (step == 0 ? nil : true), "step \(step): \(answer)")
            }
            for _ in 0..<5 {
                #expect(try await report(["event": "displayed", "time": Date().iso8601Milliseconds]).0 == 202)
                #expect(try await report(["event": "delivered", "time": Date().iso8601Milliseconds]).0 == 202)
            }
            let stats = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
            #expect(stats["actions"]["like"].int == 1, "\(stats)")
            #expect(stats["delivered"].int == 1 && stats["displayed"].int == 1 && stats["opened"].int == 0)
            let breakdown = try await harness.call("GET", "/v1/notifications/\(id)/breakdown").1
            let counted = breakdown["verdicts"].array.compactMap { $0["count"].int }.reduce(0, +)
            #expect(counted == breakdown["targeted"].int, "the breakdown adds up: \(breakdown.description)")
            let reports = try await harness.call("GET", "/v1/deliveries/\(apnsID)").1["reports"].array
            #expect(reports.count == 3, "delivered, displayed and one action: \(reports)")

            // A body past the route's limit is a JSON error naming the limit, not an empty 413.
            let (large, tooLarge) = try await report([
                "event": "opened", "detail": String(repeating: "x", count: 17_000),
            ])
            #expect(large == 413 && tooLarge["error"]["field"].string == "body", "\(tooLarge)")
            #expect(tooLarge["error"]["message"].string?.contains("16,384 bytes") == true, "\(tooLarge)")
            // A bidirectional override in an action identifier is refused, naming the field.
            let (bidi, why) = try await report(["event": "action", "action": "li\u{202E}ke"])
            #expect(bidi == 400 && why["error"]["field"].string == "action", "\(why)")
            // A second, different answer is refused, naming the first; the first may be sent again.
            var (status, answer) = try await report(["event": "opened"])
            #expect(status == 409 && answer["error"]["message"].string?.contains("action like") == true, "\(answer)")
            #expect(try await report(["event": "action", "action": "like"]).1["repeated"].bool == true)

            // Year 9999: recorded as the time it arrived, and the answer says so.
            let (_, other, otherToken) = try await harness.sentToOneDevice()
            func reportOther(_ event: [String: Any]) async throws -> (Int, JSON) {
                try await harness.call(
                    "POST", "/v1/feedback", key: harness.publishableKey,
                    body: event.merging(["apnsID": other, "token": otherToken]) { first, _ in first })
            }
            (status, answer) = try await reportOther(["event": "dismissed", "time": "9999-12-31T23:59:59Z"])
            #expect(status == 202, "\(answer)")
            let recorded = try #require(answer["time"].string.flatMap { try? Date($0, strategy: .iso8601) })
            #expect(abs(recorded.timeIntervalSinceNow) < 600, "\(answer)")
            #expect(answer["timeAdjusted"].string?.contains("after the provider's clock") == true, "\(answer)")
            // Before the notification was queued: recorded as the queueing time.
            (status, answer) = try await reportOther(["event": "delivered", "time": "1970-01-01T00:00:00Z"])
            #expect(status == 202 && answer["timeAdjusted"].string?.contains("before the notification") == true)
            #expect(try await reportOther(["event": "displayed", "time": "2026-01-01T00:00:00.5Z"]).0 == 202)
        }
    }

    @Test("a notification with only an encrypted field is accepted and targets only devices with a key")
    func encryptedOnly() async throws {
        try await ProviderHarness.with { harness in
            _ = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": try harness.gatewayToken()])
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "encrypted": ["body": "secret"]])
            #expect(status == 202)
            #expect(created["stats"]["targeted"].int == 0)
        }
    }
}
