import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import HeraldTime
import TestPacing
import Testing

@testable import PushProvider

@Suite("Content per language: each device gets the alert its locale reads best, counted by language", .startsServers)
struct NotificationLanguageTests {
    @Test(
        "region, then script, then language, then the default; Chinese by its region's script; counts add up to targeted"
    )
    func bestMatch() async throws {
        try await ProviderHarness.with { harness in
            let locales: [String?] = ["en_US", "zh-Hans-CN", "zh_TW", "pt_BR", "pt_PT", "fr_FR", nil, "PT-br"]
            var tokens: [String] = []
            for locale in locales {
                let token = try harness.gatewayToken()
                var body: [String: Any] = ["token": token]
                if let locale { body["locale"] = locale }
                #expect(try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: body).0 == 201)
                tokens.append(token)
            }
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["all": true],
                    "content": [
                        "title": "Hello", "body": "default", "badge": 3,
                        "languages": [
                            "zh-Hans": ["body": "你好"], "zh-hant": ["title": "妳好", "body": "繁體"],
                            "pt": ["body": "Olá"], "pt-BR": ["body": "Oi"],
                        ],
                    ],
                ])
            #expect(status == 202, "\(created)")
            let id = try #require(created["id"].string)
            let report = try await harness.finished(id)
            #expect(report["stats"]["accepted"].int == locales.count)
            let languages = report["languages"]
            #expect(languages["zh-Hans"].int == 1 && languages["zh-Hant"].int == 1, "\(report)")
            #expect(languages["pt"].int == 1 && languages["pt-BR"].int == 2 && languages["default"].int == 3)
            let expected = ["default", "你好", "繁體", "Oi", "Olá", "default", "default", "Oi"]
            for (token, body) in zip(tokens, expected) {
                let stored = try #require(
                    harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
                let payload = JSON(try JSONSerialization.jsonObject(with: Data(stored.payload)))
                #expect(payload["aps"]["alert"]["body"].string == body, "\(token): \(payload)")
                // The rest of the content is every language's; the alert is the language's whole.
                #expect(
                    payload["aps"]["badge"].int == 3
                        && payload["herald-id"].string?.lowercased() == stored.apnsID.uuidString.lowercased(),
                    "\(payload)")
                #expect(
                    payload["aps"]["alert"]["title"].string == (body == "繁體" ? "妳好" : body == "default" ? "Hello" : nil)
                )
            }
        }
    }

    @Test(
        "a bad language map is 400 naming the field: empty, unknown tag, twice, 51, other fields, too big, not for an activity"
    )
    func badMaps() async throws {
        try await ProviderHarness.with { harness in
            let many = Dictionary(
                uniqueKeysWithValues: Locale.LanguageCode.isoLanguageCodes.prefix(51).map {
                    ($0.identifier, ["body": "x"])
                })
            let cases: [(Any, String)] = [
                ([String: Any](), "content.languages"), (["xx": ["body": "a"]], "content.languages"),
                (["en-Latn-US-x-private": ["body": "a"]], "content.languages"),
                (["en": ["body": "a"], "EN": ["body": "b"]], "content.languages"), (many, "content.languages"),
                (["en": ["body": "a", "sound": "x"]], "content.languages.en.sound"),
                (["en": "hi"], "content.languages.en"),
                (["en": ["body": String(repeating: "x", count: 5000)]], "content.languages.en"),
                ("en", "content.languages"),
            ]
            for (languages, field) in cases {
                let (status, answer) = try await harness.call(
                    "POST", "/v1/notifications",
                    body: ["target": ["all": true], "content": ["body": "default", "languages": languages]])
                #expect(status == 400 && answer["error"]["field"].string == field, "\(languages): \(answer)")
            }
            let (status, answer) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["all": true], "content": ["body": "x", "languages": ["fr": ["body": "y"]]],
                    "encrypted": ["secret": 1],
                ])
            #expect(status == 400 && answer["error"]["field"].string == "content.languages", "\(answer)")
        }
    }

    @Test("languages beside a raw payload: each device gets its language with the payload's other keys; bad: 400")
    func besideAPayload() async throws {
        try await ProviderHarness.with { harness in
            var tokens: [String] = []
            for locale in ["fr_FR", "en_US"] {
                let token = try harness.gatewayToken()
                #expect(
                    try await harness.call("POST", "/v1/devices", body: ["token": token, "locale": locale]).0 == 201)
                tokens.append(token)
            }
            let payload: [String: Any] = [
                "aps": ["alert": ["title": "Hello", "body": "Dinner is ready"], "interruption-level": "passive"],
                "orderID": 17,
            ]
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["all": true], "payload": payload,
                    "languages": ["fr": ["title": "Bonjour", "body": "Le dîner est prêt"]],
                ])
            #expect(status == 202, "\(created)")
            let report = try await harness.finished(try #require(created["id"].string))
            #expect(report["languages"]["fr"].int == 1 && report["languages"]["default"].int == 1, "\(report)")
            let french = try TextVariableTests.received(harness, tokens[0])
            #expect(french["aps"]["alert"]["title"].string == "Bonjour" && french["orderID"].int == 17, "\(french)")
            #expect(french["aps"]["interruption-level"].string == "passive")
            #expect(try TextVariableTests.received(harness, tokens[1])["aps"]["alert"]["title"].string == "Hello")
            for (body, field) in [
                (["target": ["all": true], "payload": payload, "languages": ["xx": ["body": "a"]]], "languages"),
                (
                    ["target": ["all": true], "payload": payload, "languages": ["fr": ["sound": "a"]]],
                    "languages.fr.sound"
                ),
                (
                    ["target": ["all": true], "content": ["body": "x"], "languages": ["fr": ["body": "a"]]],
                    "languages"
                ),
            ] as [([String: Any], String)] {
                let (refused, answer) = try await harness.call("POST", "/v1/notifications", body: body)
                #expect(refused == 400 && answer["error"]["field"].string == field, "\(body): \(answer)")
            }
        }
    }

    @Test("a scheduled notification takes languages beside its kept payload, its own quiet window and a cap category")
    func changedRules() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            #expect(try await harness.call("POST", "/v1/devices", body: ["token": token, "locale": "fr_FR"]).0 == 201)
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["all": true], "payload": ["aps": ["alert": ["title": "Hello"]]],
                    "sendAt": Date().addingTimeInterval(3600).formatted(.iso8601),
                ])
            let id = try #require(created["id"].string, "\(created)")
            let (status, changed) = try await harness.call(
                "PATCH", "/v1/notifications/\(id)",
                body: [
                    "languages": ["fr": ["title": "Bonjour"]], "quietHours": false, "capCategory": "marketing",
                ])
            #expect(status == 200, "\(changed)")
            #expect(changed["capCategory"].string == "marketing" && changed["languages"]["fr"].int == 1, "\(changed)")
            let (cleared, noCategory) = try await harness.call(
                "PATCH", "/v1/notifications/\(id)", body: ["capCategory": ""])
            #expect(cleared == 200 && noCategory["capCategory"].isNull, "\(noCategory)")
            for (body, field) in [
                (["capCategory": "two words"], "capCategory"), (["quietHours": ["start": "22:00"]], "quietHours.end"),
                (["languages": ["xx": ["title": "?"]]], "languages"),
            ] as [([String: Any], String)] {
                let (refused, answer) = try await harness.call("PATCH", "/v1/notifications/\(id)", body: body)
                #expect(refused == 400 && answer["error"]["field"].string == field, "\(body): \(answer)")
            }
        }
    }

    @Test("a scheduled notification whose content changes sends the new languages and variables, counted again")
    func changedContent() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), realTimeToo: true)
        try await ProviderHarness.with(configure: { $0.clock = clock }) { harness in
            var tokens: [String] = []
            for (locale, name) in [("fr_FR", "Léa"), ("de_DE", "Jan")] {
                let token = try harness.gatewayToken()
                let body: [String: Any] = ["token": token, "locale": locale, "attributes": ["firstName": name]]
                #expect(try await harness.call("POST", "/v1/devices", body: body).0 == 201)
                tokens.append(token)
            }
            let later = clock.currentDate.addingTimeInterval(3600)
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["all": true], "sendAt": ProviderClockTests.text(later),
                    "content": ["body": "old", "languages": ["fr": ["body": "ancien"]]],
                ])
            #expect(status == 202 && created["languages"]["fr"].int == 1, "\(created)")
            let id = try #require(created["id"].string)
            let (changedStatus, changed) = try await harness.call(
                "PATCH", "/v1/notifications/\(id)",
                body: ["content": ["body": "new", "languages": ["de": ["body": "Hallo {{firstName|du}}"]]]])
            #expect(changedStatus == 200, "\(changed)")
            #expect(changed["languages"]["de"].int == 1 && changed["languages"]["fr"].isNull, "\(changed)")
            clock.advance(to: later.addingTimeInterval(1))
            _ = try await harness.finished(id)
            let bodies = try tokens.map { token in
                let stored = try #require(
                    harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
                return JSON(try JSONSerialization.jsonObject(with: Data(stored.payload)))["aps"]["alert"]["body"].string
            }
            #expect(bodies == ["new", "Hallo Jan"], "the French of before is gone, the German names its reader")
        }
    }
}
