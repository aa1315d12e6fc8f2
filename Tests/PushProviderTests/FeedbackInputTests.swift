import Foundation
import TestPacing
import Testing

@testable import PushProvider

/// `POST /v1/feedback` reads its body field by field (the busiest public route parses once): each wrong field is named
/// as the API's decoder names one, and nothing is recorded.
@Suite("A device's report read from its body: every wrong field named", .startsServers)
struct FeedbackInputTests {
    @Test("wrong types, nulls, missing fields and bad times are 400 naming the field; a good report is 202")
    func wrongFieldsAreNamed() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let good: [String: Any] = ["event": "displayed", "apnsID": apnsID, "token": token]
            let cases: [(body: Any, field: String?, says: String)] = [
                ([good], nil, "must be a JSON object"),
                (good.filter { $0.key != "event" }, "event", "is required"),
                (good.merging(["event": NSNull()]) { $1 }, "event", "not null"),
                (good.merging(["apnsID": 5]) { $1 }, "apnsID", "must be a string"),
                (good.merging(["token": ["x"]]) { $1 }, "token", "must be a string"),
                (good.merging(["time": 1_900_000_000]) { $1 }, "time", "must be a string"),
                (good.merging(["time": "yesterday"]) { $1 }, "time", "ISO 8601"),
                (good.merging(["text": true]) { $1 }, "text", "must be a string"),
            ]
            for (body, field, says) in cases {
                let (status, answer) = try await harness.call(
                    "POST", "/v1/feedback", key: harness.publishableKey, body: body)
                #expect(status == 400, "\(body): \(answer)")
                #expect(answer["error"]["field"].string == field, "\(body): \(answer)")
                #expect(answer["error"]["message"].string?.contains(says) == true, "\(body): \(answer)")
            }
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["displayed"].int == 0)
            let time = "2026-11-29T10:00:00.250Z"
            let (status, answer) = try await harness.call(
                "POST", "/v1/feedback", key: harness.publishableKey,
                body: good.merging(["time": time, "action": NSNull()]) { $1 })
            #expect(status == 202 && answer["recorded"].string == "displayed", "\(answer)")
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["displayed"].int == 1)
            let (_, repeated) = try await harness.call(
                "POST", "/v1/feedback", key: harness.publishableKey, body: good)
            #expect(repeated["repeated"].bool == true, "\(repeated)")
        }
    }
}
