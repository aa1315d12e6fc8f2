import APNSCore
import APNSGateway
import Foundation
import GatewayTestSupport
import ProviderStorage
import TestPacing
import Testing

@testable import PushProvider

/// "Why didn't it arrive?" through the provider's API against a live local APNs: the device's outcome reports, the
/// breakdown and each verdict's devices, and the local APNs' log for a device that never reported.
@Suite("Verdicts through the provider's API", .startsServers)
struct VerdictAPITests {
    @Test("outcome reports become verdicts, counted in the breakdown and listed per verdict; bad ids are named")
    func reportsAndBreakdown() async throws {
        try await ProviderHarness.with { harness in
            let tokens = try (0..<4).map { _ in try harness.gatewayToken() }
            for token in tokens {
                _ = try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: ["token": token])
            }
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["title": "t", "body": "b"]])
            let id = try #require(created["id"].string)
            _ = try await harness.finished(id)
            let (_, page) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries")
            let apnsIDs = page.array.compactMap { $0["apnsID"].string }
            // Required: the reports below index them (a test that cannot set up must fail, not crash the run).
            try #require(apnsIDs.count == 4, "\(page)")
            #expect(page.array.allSatisfy { $0["verdict"]["verdict"].string == "awaitingDevice" })

            func report(_ index: Int, _ body: [String: Any]) async throws {
                var body = body
                body["apnsID"] = apnsIDs[index]
                let (status, answer) = try await harness.call("POST", "/v1/feedback", body: body)
                #expect(status == 202, "\(body): \(answer)")
            }
            try await report(0, ["event": "delivered"])
            try await report(0, ["event": "outcome", "outcome": "notAuthorized", "detail": "authorization is denied"])
            try await report(1, ["event": "delivered"])
            try await report(1, ["event": "displayed"])
            try await report(1, ["event": "outcome", "outcome": "extensionFailed", "detail": "fail: boom"])
            try await report(1, ["event": "outcome", "outcome": "extensionFailed", "detail": "again"])
            try await report(2, ["event": "delivered"])
            try await report(2, ["event": "displayed"])
            try await report(2, ["event": "response", "action": "default"])

            let (_, breakdown) = try await harness.call("GET", "/v1/notifications/\(id)/breakdown")
            let counts = Dictionary(
                uniqueKeysWithValues: breakdown["verdicts"].array.map {
                    ($0["verdict"].string ?? "", $0["count"].int ?? 0)
                })
            #expect(
                counts == ["notShown": 1, "shownOriginal": 1, "opened": 1, "awaitingDevice": 1],
                "a repeated outcome report counts once: \(breakdown)")
            #expect(breakdown["undecided"].int == 1)
            let link = try #require(breakdown["verdicts"][0]["devices"].string)
            #expect(link.hasPrefix("/v1/notifications/\(id)/verdicts?verdict="))

            var (status, listed) = try await harness.call("GET", "/v1/notifications/\(id)/verdicts?verdict=notShown")
            #expect(status == 200 && listed["deliveries"].array.map { $0["apnsID"].string } == [apnsIDs[0]])
            #expect(listed["deliveries"][0]["verdict"]["sentence"].string?.contains("has not allowed") == true)
            #expect(listed["next"].string == nil && listed["scanned"].int == 4)
            (_, listed) = try await harness.call("GET", "/v1/notifications/\(id)/verdicts?verdict=shownOriginal")
            #expect(listed["deliveries"][0]["verdict"]["sentence"].string?.contains("fail: boom") == true, "\(listed)")
            (_, listed) = try await harness.call("GET", "/v1/notifications/\(id)/verdicts?limit=2")
            #expect(listed["deliveries"].array.count == 2 && listed["next"].string == apnsIDs[1], "\(listed)")
            let (_, one) = try await harness.call("GET", "/v1/deliveries/\(apnsIDs[2])")
            #expect(one["verdict"]["verdict"].string == "opened")

            // Bad input: an unknown verdict, an unknown outcome, an id of nothing.
            (status, listed) = try await harness.call("GET", "/v1/notifications/\(id)/verdicts?verdict=lost")
            #expect(status == 400 && listed["error"]["field"].string == "verdict")
            (status, listed) = try await harness.call(
                "POST", "/v1/feedback", body: ["event": "outcome", "outcome": "eaten", "apnsID": apnsIDs[3]])
            #expect(status == 400 && listed["error"]["field"].string == "outcome", "\(listed)")
            (status, listed) = try await harness.call("GET", "/v1/notifications/\(UUID().uuidString)/breakdown")
            #expect(status == 404)
        }
    }

    @Test("a push to a token the app replaced since: its verdict says the token was retired and why")
    func replacedToken() async throws {
        try await ProviderHarness.with { harness in
            let old = try harness.gatewayToken()
            _ = try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: ["token": old])
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": old], "content": ["body": "x"]])
            let id = try #require(created["id"].string)
            _ = try await harness.finished(id)
            var (_, page) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries")
            #expect(page[0]["verdict"]["verdict"].string == "awaitingDevice")
            let new = try harness.gatewayToken()
            let (status, _) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": new, "replaces": old])
            #expect(status == 201)
            (_, page) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries")
            let verdict = page[0]["verdict"]
            #expect(verdict["verdict"].string == "tokenGone", "\(verdict)")
            #expect(verdict["sentence"].string?.contains("the app registered a new token") == true, "\(verdict)")
        }
    }

    @Test("a device that never reported: the local APNs' log says stored, replaced by a collapse ID, or coalesced")
    func gatewayLog() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            func send(_ body: [String: Any]) async throws -> String {
                var body = body
                body["target"] = ["token": token]
                let (_, created) = try await harness.call("POST", "/v1/notifications", body: body)
                let id = try #require(created["id"].string)
                _ = try await harness.finished(id)
                let (_, page) = try await harness.call("GET", "/v1/notifications/\(id)/deliveries")
                return try #require(page[0]["apnsID"].string)
            }
            func verdict(_ apnsID: String) async throws -> DeliveryVerdict {
                let trace = try #require(try await harness.provider.notifications.deliveryTrace(apnsID: apnsID))
                let uuid = try #require(UUID(uuidString: apnsID))
                let entry = try #require(harness.gateway.server.store.log.entry(apnsID: uuid))
                let log = GatewayLogEntry(json: AdminRequestProcessor.json(entry))
                #expect(log?.events.isEmpty == false)
                return DeliveryVerdict.of(trace, gateway: log, now: Date())
            }
            let first = try await send(["content": ["body": "1"], "collapseID": "score", "expiration": 4_102_444_800])
            let stored = try await verdict(first)
            #expect(stored.verdict == "storedOffline", "\(stored)")
            #expect(stored.sentence.contains("before its apns-expiration, 2100-01-01T00:00:00"), "\(stored)")
            let second = try await send(["content": ["body": "2"], "collapseID": "score"])
            let replaced = try await verdict(first)
            #expect(replaced.verdict == "replaced" && replaced.sentence.contains(second.lowercased()), "\(replaced)")
            let third = try await send(["content": ["body": "3"]])
            #expect(try await verdict(second).verdict == "coalesced")
            // apns-expiration 0 to an offline device: now or never, so not kept; the one stored before stays.
            let fourth = try await send(["content": ["body": "4"], "expiration": 0])
            let discarded = try await verdict(fourth)
            #expect(
                discarded.verdict == "discarded" && discarded.sentence.contains("apns-expiration is 0"), "\(discarded)")
            #expect(try await verdict(third).verdict == "storedOffline")
        }
    }
}
