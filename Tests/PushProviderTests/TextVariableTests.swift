import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import ProviderStorage
import TestPacing
import Testing

@testable import PushProvider

@Suite("Variables in a notification's text: each device's attributes, or the default", .startsServers)
struct TextVariableTests {
    /// What the device with `token` was sent, parsed.
    static func received(_ harness: ProviderHarness, _ token: String) throws -> JSON {
        let stored = try #require(harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
        return JSON(try JSONSerialization.jsonObject(with: Data(stored.payload)))
    }

    @Test(
        "each device reads its own value, as text (quotes, a {{ in a value), the default without one; in each language")
    func filled() async throws {
        try await ProviderHarness.with { harness in
            let people: [([String: String]?, String?)] = [
                (["firstName": "Ana"], nil), (["firstName": #"Bo "the" \ one"#], nil), (nil, nil),
                (["firstName": "{{lastName|x}}"], nil), (["firstName": "Élodie"], "fr_FR"),
            ]
            var tokens: [String] = []
            for (attributes, locale) in people {
                let token = try harness.gatewayToken()
                var body: [String: Any] = ["token": token]
                if let attributes { body["attributes"] = attributes }
                if let locale { body["locale"] = locale }
                let (status, device) = try await harness.call("POST", "/v1/devices", body: body)
                #expect(
                    status == 201 && device["attributes"]["firstName"].string == attributes?["firstName"], "\(device)")
                tokens.append(token)
            }
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["all": true],
                    "content": [
                        "title": "Hi {{firstName|there}}", "body": "20% off for {{firstName|you}} today",
                        "languages": ["fr": ["title": "Bonjour {{firstName|toi}}"]],
                    ],
                ])
            #expect(status == 202, "\(created)")
            let report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == people.count, "\(report)")
            let titles = try tokens.map { try Self.received(harness, $0)["aps"]["alert"]["title"].string }
            #expect(titles == ["Hi Ana", #"Hi Bo "the" \ one"#, "Hi there", "Hi {{lastName|x}}", "Bonjour Élodie"])
            #expect(try Self.received(harness, tokens[0])["aps"]["alert"]["body"].string == "20% off for Ana today")
            #expect(try Self.received(harness, tokens[0])["herald-id"].string != nil)
        }
    }

    @Test("values that would pass APNs' size limit: that device gets the defaults")
    func tooBig() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            let long = String(repeating: "x", count: DeviceAttributes.maximumAttributeValue)
            let attributes = Dictionary(uniqueKeysWithValues: (0..<16).map { ("a\($0)", long) })
            #expect(
                try await harness.call("POST", "/v1/devices", body: ["token": token, "attributes": attributes]).0 == 201
            )
            let title = (0..<16).map { "{{a\($0)|-}}" }.joined()
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["token": token],
                    "content": ["title": title, "body": String(repeating: "b", count: 3600)],
                ])
            #expect(status == 202, "\(created)")
            _ = try await harness.finished(try #require(created["id"].string))
            #expect(
                try Self.received(harness, token)["aps"]["alert"]["title"].string == String(repeating: "-", count: 16))
        }
    }

    @Test("a variable without a default, a bad name, an open {{, a long default, with encrypted: 400 naming the place")
    func badText() async throws {
        try await ProviderHarness.with { harness in
            let cases: [([String: Any], String)] = [
                (["title": "Hi {{firstName}}"], "payload.aps.alert.title"),
                (["body": "Hi {{first name|x}}"], "payload.aps.alert.body"),
                (["body": "Hi {{firstName|x"], "payload.aps.alert.body"),
                (["body": "{{a|\(String(repeating: "d", count: 65))}}"], "payload.aps.alert.body"),
                (["body": "x", "data": ["deep": ["{{v}}"]]], "payload.deep[0]"),
                (["body": "{{a|b}}", "data": ["{{k": "v"]], "payload.{{k"),
                (["body": "x", "languages": ["fr": ["body": "{{nom}}"]]], "content.languages.fr.body"),
            ]
            for (content, field) in cases {
                let (status, answer) = try await harness.call(
                    "POST", "/v1/notifications", body: ["target": ["all": true], "content": content])
                #expect(status == 400 && answer["error"]["field"].string == field, "\(content): \(answer)")
            }
            let (status, answer) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["all": true], "content": ["body": "{{a|b}}"], "encrypted": ["x": 1]])
            #expect(status == 400 && answer["error"]["field"].string == "encrypted", "\(answer)")
        }
    }

    @Test("attributes come from the API key only, at most 16, named, each at most 256 characters")
    func attributeLimits() async throws {
        try await ProviderHarness.with { harness in
            let (refused, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey,
                body: ["token": try harness.gatewayToken(), "attributes": ["firstName": "Eve"]])
            #expect(refused == 403 && answer["error"]["message"].string?.contains("API key") == true, "\(answer)")
            let many = Dictionary(uniqueKeysWithValues: (0..<17).map { ("a\($0)", "v") })
            for (attributes, field) in [
                (many, "attributes"), (["first name": "x"], "attributes"), (["1st": "x"], "attributes"),
                (["firstName": String(repeating: "x", count: 257)], "attributes.firstName"),
            ] {
                let (status, answer) = try await harness.call(
                    "POST", "/v1/devices", body: ["token": try harness.gatewayToken(), "attributes": attributes])
                #expect(status == 400 && answer["error"]["field"].string == field, "\(attributes.keys): \(answer)")
            }
        }
    }
}
