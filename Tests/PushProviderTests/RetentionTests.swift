import APNSCore
import Foundation
import HeraldTime
import PushProvider
import TestPacing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records are kept in bounded space (issue 47): an app's retention is checked, rows past it are pruned, and what
/// was pruned still answers (counts, and `herald why` says it was pruned and when).
@Suite("Retention: records pruned past their time, counts kept", .startsServers)
struct RetentionTests {
    @Test(
        "a retention of 0, -1, 10^12 or 1e30 days is refused naming the field and the limits",
        arguments: [
            "0", "-1", "1000000000000", "1e30",
        ])
    func badRetention(_ days: String) async throws {
        try await ProviderHarness.with { harness in
            var request = URLRequest(url: URL(string: harness.baseURL + "/v1/apps/\(harness.appID)")!)
            request.httpMethod = "PATCH"
            request.setValue("Bearer \(harness.apiKey)", forHTTPHeaderField: "Authorization")
            request.httpBody = Data(#"{"retention": {"deliveries": \#(days)}}"#.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 400)
            let answer = try JSONValue(parsing: data)
            #expect(answer["error"]?["field"]?.string == "retention.deliveries", "\(answer)")
            let message = answer["error"]?["message"]?.string ?? ""
            #expect(message.contains("3650") || message.contains("out of range"), "\(answer)")
            let app = try await harness.call("GET", "/v1/apps/\(harness.appID)").1
            #expect(app["retention"]["deliveries"].isNull, "nothing changed: \(app)")
        }
    }

    @Test("past its retention a delivery's row is pruned: why says so and when; the notification's counts remain")
    func pruned() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            let (status, app) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: ["retention": ["deliveries": 2, "traces": 1]])
            #expect(status == 200, "\(app)")
            #expect(app["retention"]["deliveries"].int == 2)
            let sent = try await harness.sentToOneDevice()
            let (feedback, _) = try await harness.call(
                "POST", "/v1/feedback", key: harness.publishableKey,
                body: ["apnsID": sent.apnsID, "token": sent.token, "event": "delivered"])
            #expect(feedback == 202)
            #expect(try await harness.call("GET", "/v1/deliveries/\(sent.apnsID)").0 == 200)

            // A day on, within retention: still there. Three days on: pruned at the next pass.
            clock.advance(to: clock.currentDate.addingTimeInterval(86_400))
            #expect(try await harness.call("GET", "/v1/deliveries/\(sent.apnsID)").0 == 200)
            clock.advance(to: clock.currentDate.addingTimeInterval(2 * 86_400 + 700))
            var answer = (0, JSON(nil))
            try await harness.until("the delivery is pruned") {
                answer = try await harness.call("GET", "/v1/deliveries/\(sent.apnsID)")
                if answer.0 != 410 {
                    // The pruner waits on the provider's clock: move it past the next pass.
                    clock.advance(to: clock.currentDate.addingTimeInterval(601))
                }
                return answer.0 == 410
            }
            #expect(answer.1["error"]["code"].string == "gone")
            let message = try #require(answer.1["error"]["message"].string)
            #expect(message.contains("pruned at") && message.contains("2 days"), "\(message)")
            let report = try await harness.call("GET", "/v1/notifications/\(sent.id)").1
            #expect(report["stats"]["accepted"].int == 1, "\(report)")
            #expect(report["stats"]["delivered"].int == 1, "\(report)")
            #expect(report["prunedAt"].string != nil, "\(report)")
            #expect(report["state"].string == "done")
        }
    }

    @Test("a cancelled daily notification's rows are pruned once it was cancelled longer ago than the retention")
    func cancelledDaily() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            #expect(
                try await harness.call("PATCH", "/v1/apps/\(harness.appID)", body: ["retention": ["deliveries": 1]]).0
                    == 200)
            for _ in 0..<3 {
                #expect(try await harness.call("POST", "/v1/devices", body: ["token": harness.gatewayToken()]).0 == 201)
            }
            let created = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["all": true], "content": ["body": "daily"], "dailyAt": "07:00"]
            ).1
            let id = try #require(created["id"].string)
            #expect(try await harness.call("DELETE", "/v1/notifications/\(id)").1["cancelled"].int == 3)
            #expect(try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array.count == 3)
            clock.advance(to: clock.currentDate.addingTimeInterval(2 * 86_400 + 700))
            try await harness.until("its rows are pruned") {
                let rows = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
                if !rows.isEmpty { clock.advance(to: clock.currentDate.addingTimeInterval(601)) }
                return rows.isEmpty
            }
            let report = try await harness.call("GET", "/v1/notifications/\(id)").1
            #expect(report["stats"]["cancelled"].int == 3, "its counts remain: \(report)")
            #expect(report["state"].string == "cancelled")
        }
    }
}
