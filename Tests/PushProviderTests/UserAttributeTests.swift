import APNSCore
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@testable import PushProvider

@Suite("A user's attributes: the variables of each of the user's devices, a device's own value first", .startsServers)
struct UserAttributeTests {
    @Test("set once for the user, read by both of the user's devices; a device's own attribute wins; removed: defaults")
    func filledForTheUser() async throws {
        try await ProviderHarness.with { harness in
            let (status, set) = try await harness.call(
                "PUT", "/v1/users/ana/attributes", body: ["attributes": ["firstName": "Ana", "tier": "gold"]])
            #expect(status == 200 && set["attributes"]["tier"].string == "gold" && set["userID"].string == "ana")
            #expect(set["updatedAt"].string != nil, "\(set)")
            var tokens: [String] = []
            for own in [nil, ["firstName": "Annie"]] as [[String: String]?] {
                let token = try harness.gatewayToken()
                var body: [String: Any] = ["token": token, "userID": "ana"]
                if let own { body["attributes"] = own }
                #expect(try await harness.call("POST", "/v1/devices", body: body).0 == 201)
                tokens.append(token)
            }
            let stranger = try harness.gatewayToken()
            #expect(try await harness.call("POST", "/v1/devices", body: ["token": stranger]).0 == 201)
            let text = ["title": "Hi {{firstName|there}}", "body": "your {{tier|basic}} offer"]
            let first = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": text]
            ).1
            _ = try await harness.finished(try #require(first["id"].string))
            let alerts = try (tokens + [stranger]).map { try TextVariableTests.received(harness, $0)["aps"]["alert"] }
            #expect(alerts.map { $0["title"].string } == ["Hi Ana", "Hi Annie", "Hi there"])
            #expect(alerts.map { $0["body"].string } == ["your gold offer", "your gold offer", "your basic offer"])
            let (read, shown) = try await harness.call("GET", "/v1/users/ana/attributes")
            #expect(read == 200 && shown["attributes"]["firstName"].string == "Ana", "\(shown)")
            #expect(try await harness.call("DELETE", "/v1/users/ana/attributes").0 == 204)
            let (_, gone) = try await harness.call("GET", "/v1/users/ana/attributes")
            #expect(gone["attributes"].object?.isEmpty == true && gone["updatedAt"].isNull, "\(gone)")
            let second = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": tokens[0]], "content": text]
            ).1
            _ = try await harness.finished(try #require(second["id"].string))
            #expect(try TextVariableTests.received(harness, tokens[0])["aps"]["alert"]["title"].string == "Hi there")
        }
    }

    @Test("the API key only; the same limits as a device's: 17, a bad name, 257 characters, not a map: 400 naming it")
    func limits() async throws {
        try await ProviderHarness.with { harness in
            let (refused, answer) = try await harness.call(
                "PUT", "/v1/users/ana/attributes", key: harness.publishableKey, body: ["attributes": ["a": "b"]])
            #expect(refused == 401 || refused == 403, "\(answer)")
            let many = Dictionary(uniqueKeysWithValues: (0..<17).map { ("a\($0)", "v") })
            let cases: [(Any, String)] = [
                (["attributes": many], "attributes"), (["attributes": ["first name": "x"]], "attributes"),
                (["attributes": ["firstName": String(repeating: "x", count: 257)]], "attributes.firstName"),
                (["attributes": ["firstName": 3]], "attributes.firstName"), (["attributes": "x"], "attributes"),
                (["attributes": [:], "extra": 1], "extra"),
            ]
            for (body, field) in cases {
                let (status, answer) = try await harness.call("PUT", "/v1/users/ana/attributes", body: body)
                #expect(status == 400 && answer["error"]["field"].string == field, "\(body): \(answer)")
            }
            let (_, kept) = try await harness.call("GET", "/v1/users/ana/attributes")
            #expect(kept["attributes"].object?.isEmpty == true, "nothing refused was kept: \(kept)")
            let (longID, why) = try await harness.call(
                "PUT", "/v1/users/\(String(repeating: "u", count: 257))/attributes", body: ["attributes": [:]])
            #expect(longID == 400 && why["error"]["field"].string == "userID", "\(why)")
        }
    }
}
