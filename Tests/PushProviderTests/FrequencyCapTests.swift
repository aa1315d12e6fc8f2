import APNSCore
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@testable import PushProvider

@Suite("Frequency caps: at most N alerts of a category to one user or device in a rolling window", .startsServers)
struct FrequencyCapTests {
    /// Registers a gateway token (for `user` when given) with the API key; the token.
    static func device(_ harness: ProviderHarness, user: String? = nil) async throws -> String {
        let token = try harness.gatewayToken()
        var body: [String: Any] = ["token": token]
        if let user { body["userID"] = user }
        let (status, answer) = try await harness.call("POST", "/v1/devices", body: body)
        #expect(status == 201, "\(answer)")
        return token
    }

    /// Sends an alert and waits for it to finish; its report.
    static func send(_ harness: ProviderHarness, _ body: [String: Any]) async throws -> JSON {
        let (status, created) = try await harness.call("POST", "/v1/notifications", body: body)
        #expect(status == 201 || status == 202, "\(created)")
        return try await harness.finished(try #require(created["id"].string))
    }

    @Test("a cap per user: a user's two devices count as one; the third of the day is capped, others go through")
    func cappedPerUser() async throws {
        try await ProviderHarness.with { harness in
            let (status, app) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)",
                body: ["frequencyCaps": [["category": "marketing", "limit": 2, "window": "1d", "per": "user"]]])
            #expect(status == 200, "\(app)")
            #expect(app["frequencyCaps"][0]["window"].int == 86_400 && app["frequencyCaps"][0]["limit"].int == 2)
            _ = try await Self.device(harness, user: "ana")
            _ = try await Self.device(harness, user: "ana")
            _ = try await Self.device(harness)
            let marketing: [String: Any] = [
                "target": ["all": true], "content": ["body": "sale"], "capCategory": "marketing",
            ]
            for round in 1...2 {
                let report = try await Self.send(harness, marketing)
                #expect(report["stats"]["accepted"].int == 3, "round \(round): \(report)")
                #expect(report["capCategory"].string == "marketing")
            }
            let third = try await Self.send(harness, marketing)
            #expect(third["stats"]["accepted"].int == 0 && third["stats"]["rejected"]["Capped"].int == 3, "\(third)")
            let id = try #require(third["id"].string)
            let breakdown = try await harness.call("GET", "/v1/notifications/\(id)/breakdown").1
            let capped = breakdown["verdicts"].array.first { $0["verdict"].string == "capped" }
            #expect(capped?["count"].int == 3, "\(breakdown)")
            let verdicts = try await harness.call("GET", "/v1/notifications/\(id)/verdicts?verdict=capped").1
            let first = try #require(verdicts["deliveries"].array.first)
            #expect(first["verdict"]["decided"].bool == true, "\(first)")
            #expect(first["verdict"]["sentence"].string?.contains("frequency cap") == true, "\(first)")
            // Exempt: no category (transactional), another category, time-sensitive.
            let receipt = try await Self.send(harness, ["target": ["all": true], "content": ["body": "receipt"]])
            #expect(receipt["stats"]["accepted"].int == 3, "\(receipt)")
            let digest = try await Self.send(
                harness, ["target": ["all": true], "content": ["body": "digest"], "capCategory": "digest"])
            #expect(digest["stats"]["accepted"].int == 3, "\(digest)")
            let urgent = try await Self.send(
                harness,
                [
                    "target": ["all": true], "capCategory": "marketing",
                    "payload": ["aps": ["alert": "last hour", "interruption-level": "time-sensitive"]],
                ])
            #expect(urgent["stats"]["accepted"].int == 3, "\(urgent)")
            // Removed: the category goes again.
            let (_, cleared) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: ["frequencyCaps": []])
            #expect(cleared["frequencyCaps"].isNull, "\(cleared)")
            #expect(try await Self.send(harness, marketing)["stats"]["accepted"].int == 3)
        }
    }

    @Test("a cap per device: the device that got one is capped, its user's other device is not")
    func cappedPerDevice() async throws {
        try await ProviderHarness.with { harness in
            let (status, app) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)",
                body: ["frequencyCaps": [["category": "news", "limit": 1, "window": 3600, "per": "device"]]])
            #expect(status == 200, "\(app)")
            let phone = try await Self.device(harness, user: "bo")
            let tablet = try await Self.device(harness, user: "bo")
            let first = try await Self.send(
                harness, ["target": ["token": phone], "content": ["body": "one"], "capCategory": "news"])
            #expect(first["stats"]["accepted"].int == 1, "\(first)")
            let second = try await Self.send(
                harness, ["target": ["user": "bo"], "content": ["body": "two"], "capCategory": "news"])
            #expect(second["stats"]["accepted"].int == 1 && second["stats"]["rejected"]["Capped"].int == 1)
            let id = try #require(second["id"].string)
            let verdicts = try await harness.call("GET", "/v1/notifications/\(id)/verdicts?verdict=capped").1
            #expect(verdicts["deliveries"].array.map { $0["token"].string } == [phone], "\(verdicts)")
            _ = tablet
        }
    }

    @Test("bad caps and categories are 400 naming the field: 0, 10^9, no window, 31 days, a team, 21 caps, twice")
    func badCaps() async throws {
        try await ProviderHarness.with { harness in
            let good: [String: Any] = ["category": "marketing", "limit": 3, "window": "1d"]
            func with(_ key: String, _ value: Any) -> [String: Any] {
                var cap = good
                cap[key] = value
                return cap
            }
            let cases: [(Any, String)] = [
                ([with("limit", 0)], "frequencyCaps[0].limit"),
                ([with("limit", 1_000_000_000)], "frequencyCaps[0].limit"),
                ([with("limit", -1)], "frequencyCaps[0].limit"),
                ([with("limit", 1.5)], "frequencyCaps[0].limit"),
                ([with("window", 0)], "frequencyCaps[0].window"),
                ([with("window", "31d")], "frequencyCaps[0].window"),
                ([with("window", "1w")], "frequencyCaps[0].window"),
                ([with("window", 1e30)], "frequencyCaps[0].window"),
                ([with("per", "team")], "frequencyCaps[0].per"),
                ([with("category", "")], "frequencyCaps[0].category"),
                ([with("category", "two words")], "frequencyCaps[0].category"),
                ([with("days", 5)], "frequencyCaps[0].days"),
                ([good, good], "frequencyCaps[1]"),
                (Array(repeating: good, count: 21), "frequencyCaps"),
                (good, "frequencyCaps"), (["marketing"], "frequencyCaps[0]"),
            ]
            for (caps, field) in cases {
                let (status, answer) = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)", body: ["frequencyCaps": caps])
                #expect(status == 400 && answer["error"]["field"].string == field, "\(caps): \(answer)")
            }
            for category in ["", String(repeating: "a", count: 65), "a b", "é"] {
                let (status, answer) = try await harness.call(
                    "POST", "/v1/notifications",
                    body: ["target": ["all": true], "content": ["body": "x"], "capCategory": category])
                #expect(status == 400 && answer["error"]["field"].string == "capCategory", "\(category): \(answer)")
            }
            let (_, app) = try await harness.call("GET", "/v1/apps/\(harness.appID)")
            #expect(app["frequencyCaps"].isNull, "nothing refused was kept: \(app)")
        }
    }
}
