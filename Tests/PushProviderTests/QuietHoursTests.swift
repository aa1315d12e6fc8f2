import APNSCore
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@testable import PushProvider

@Suite("Quiet hours in each device's own time zone: alerts wait for the window's end, or are dropped", .startsServers)
struct QuietHoursTests {
    /// A window from an hour before now to an hour after, in UTC: a device in UTC is inside it, one twelve hours
    /// ahead (Etc/GMT-12) outside.
    static func window(action: String = "wait") -> [String: Any] {
        let format = { (offset: TimeInterval) -> String in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let parts = calendar.dateComponents([.hour, .minute], from: Date().addingTimeInterval(offset))
            return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        }
        return ["start": format(-3600), "end": format(3600), "action": action]
    }

    /// Three devices: in UTC (inside the window), twelve hours ahead (outside), without a time zone.
    static func devices(_ harness: ProviderHarness) async throws -> [String] {
        var tokens: [String] = []
        for zone in ["UTC", "Etc/GMT-12", nil] {
            let token = try harness.gatewayToken()
            var body: [String: Any] = ["token": token]
            if let zone { body["timeZone"] = zone }
            #expect(try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: body).0 == 201)
            tokens.append(token)
        }
        return tokens
    }

    @Test(
        "the app's window holds the alert of the device inside it, sends the others; time-sensitive and false go through"
    )
    func held() async throws {
        try await ProviderHarness.with { harness in
            let (status, app) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: ["quietHours": Self.window()])
            #expect(status == 200 && app["quietHours"]["action"].string == "wait", "\(app)")
            let tokens = try await Self.devices(harness)
            let id = try #require(
                try await harness.call(
                    "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "marketing"]]
                ).1["id"].string)
            try await harness.until("the two outside the window sent") {
                try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["accepted"].int == 2
            }
            let report = try await harness.call("GET", "/v1/notifications/\(id)").1
            #expect(report["state"].string == "sending" && report["stats"]["queued"].int == 1, "\(report)")
            let waiting = try await harness.call("GET", "/v1/notifications/\(id)/verdicts?verdict=queued").1
            let held = try #require(waiting["deliveries"].array.first)
            #expect(held["token"].string == tokens[0], "the device in UTC waits: \(waiting)")
            #expect(held["verdict"]["verdict"].string == "quietHours" && held["verdict"]["decided"].bool == false)
            #expect(held["verdict"]["waitingFor"].string?.contains("quiet hours") == true, "\(held)")
            // What must go through does: time-sensitive, or the notification turns the window off.
            let urgent = try #require(
                try await harness.call(
                    "POST", "/v1/notifications",
                    body: [
                        "target": ["all": true],
                        "payload": ["aps": ["alert": "now", "interruption-level": "time-sensitive"]],
                    ]
                ).1["id"].string)
            #expect(try await harness.finished(urgent)["stats"]["accepted"].int == 3)
            let off = try #require(
                try await harness.call(
                    "POST", "/v1/notifications",
                    body: ["target": ["all": true], "content": ["body": "receipt"], "quietHours": false]
                ).1["id"].string)
            #expect(try await harness.finished(off)["stats"]["accepted"].int == 3)
            // Removed: the app's alerts go at once.
            let (_, cleared) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: ["quietHours": ""])
            #expect(cleared["quietHours"].isNull, "\(cleared)")
        }
    }

    @Test(
        "a notification's own window that drops: the device inside it is not sent, its verdict and the breakdown say so"
    )
    func dropped() async throws {
        try await ProviderHarness.with { harness in
            _ = try await Self.devices(harness)
            let id = try #require(
                try await harness.call(
                    "POST", "/v1/notifications",
                    body: [
                        "target": ["all": true], "content": ["body": "digest"],
                        "quietHours": Self.window(action: "drop"),
                    ]
                ).1["id"].string)
            let report = try await harness.finished(id)
            #expect(report["stats"]["accepted"].int == 2 && report["stats"]["rejected"]["QuietHours"].int == 1)
            let breakdown = try await harness.call("GET", "/v1/notifications/\(id)/breakdown").1
            let quiet = breakdown["verdicts"].array.first { $0["verdict"].string == "quietHours" }
            #expect(quiet?["count"].int == 1, "\(breakdown)")
            let dropped = try await harness.call("GET", "/v1/notifications/\(id)/verdicts?verdict=quietHours").1
            #expect(dropped["deliveries"].array.first?["verdict"]["decided"].bool == true, "\(dropped)")
        }
    }

    @Test("a bad window is 400 naming its field: no time, the whole day, 25:00, an unknown action or field")
    func badWindows() async throws {
        try await ProviderHarness.with { harness in
            let cases: [(Any, String)] = [
                (["start": "22:00", "end": "22:00"], "quietHours.end"),
                (["start": "25:00", "end": "08:00"], "quietHours.start"),
                (["start": "22:00", "end": "8:00"], "quietHours.end"),
                (["start": "22:00", "end": "08:00", "action": "later"], "quietHours.action"),
                (["start": "22:00", "end": "08:00", "days": 5], "quietHours.days"), ("22:00-08:00", "quietHours"),
            ]
            for (window, field) in cases {
                let (status, answer) = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)", body: ["quietHours": window])
                #expect(status == 400 && answer["error"]["field"].string == field, "\(window): \(answer)")
                let (created, refused) = try await harness.call(
                    "POST", "/v1/notifications",
                    body: ["target": ["all": true], "content": ["body": "x"], "quietHours": window])
                #expect(created == 400 && refused["error"]["field"].string == field, "\(window): \(refused)")
            }
            let (status, answer) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["all": true], "content": ["body": "x"], "quietHours": true])
            #expect(status == 400 && answer["error"]["field"].string == "quietHours", "\(answer)")
        }
    }
}
