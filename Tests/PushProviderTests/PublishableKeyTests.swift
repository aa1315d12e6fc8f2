import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

/// The publishable key is inside every copy of the app: it must act only for the device and user that holds it.
@Suite("What the publishable key may do", .startsServers)
struct PublishableKeyTests {
    @Test("feedback needs the token the delivery reached: another device's apns-id alone records nothing")
    func feedbackNeedsTheDevice() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let key = harness.publishableKey
            let bare = ["event": "opened", "apnsID": apnsID]
            let (missing, answer) = try await harness.call("POST", "/v1/feedback", key: key, body: bare)
            #expect(missing == 400 && answer["error"]["field"].string == "token")
            let other = String(repeating: "cd", count: 32)
            let (wrong, _) = try await harness.call(
                "POST", "/v1/feedback", key: key, body: bare.merging(["token": other]) { $1 })
            #expect(wrong == 404)
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["opened"].int == 0)
            let (own, _) = try await harness.call(
                "POST", "/v1/feedback", key: key, body: bare.merging(["token": token.uppercased()]) { $1 })
            #expect(own == 202)
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["opened"].int == 1)
            // The app's server may report without the token.
            let (server, _) = try await harness.call(
                "POST", "/v1/feedback", body: ["event": "delivered", "apnsID": apnsID])
            #expect(server == 202)
        }
    }

    @Test("apns-ids of one broadcast share nothing guessable, and a made-up one in the same form is unknown")
    func apnsIDsAreNotGuessable() async throws {
        try await ProviderHarness.with { harness in
            let tokens = try (0..<3).map { _ in try harness.gatewayToken() }
            for token in tokens {
                _ = try await harness.call("POST", "/v1/devices", body: ["token": token])
            }
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "x"]])
            _ = try await harness.finished(try #require(created["id"].string))
            let ids = try tokens.map { token in
                try #require(harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
                    .apnsID.uuidString
            }
            #expect(Set(ids.map { $0.prefix(23) }).count == 3, "the apns-ids share a prefix: \(ids)")
            // The next delivery number with the first one's prefix, as the old scheme would have had it.
            let first = ids[0]
            let number = Int64(first.suffix(12), radix: 16)! + 1
            let hex = String(number, radix: 16, uppercase: true)
            let guess = first.prefix(24) + String(repeating: "0", count: 12 - hex.count) + hex
            let (status, _) = try await harness.call("GET", "/v1/deliveries/\(guess)")
            #expect(status == 404)
            let (feedback, _) = try await harness.call(
                "POST", "/v1/feedback", key: harness.publishableKey,
                body: ["event": "opened", "apnsID": String(guess), "token": tokens[1]])
            #expect(feedback == 404)
        }
    }

    @Test("a device bound to a user keeps its tags and time zone unless that user's token comes with the change")
    func userBoundDevice() async throws {
        try await ProviderHarness.with { harness in
            let token = String(repeating: "ef", count: 32)
            let userToken = try #require(try await harness.call("POST", "/v1/users/bob/token").1["userToken"].string)
            let key = harness.publishableKey
            let (made, _) = try await harness.call(
                "POST", "/v1/devices", key: key,
                body: ["token": token, "userID": "bob", "userToken": userToken, "tags": ["vip"]])
            #expect(made == 201)
            for change: [String: Any] in [["tags": ["spam"]], ["timeZone": "Europe/Paris"], ["locale": "fr"]] {
                let (status, answer) = try await harness.call(
                    "POST", "/v1/devices", key: key, body: change.merging(["token": token]) { $1 })
                #expect(status == 403, "\(change): \(answer)")
            }
            // The same registration again (an app launch) changes nothing and needs no token.
            let (same, _) = try await harness.call(
                "POST", "/v1/devices", key: key, body: ["token": token, "tags": ["vip"]])
            #expect(same == 200)
            let (device, _) = try await harness.call("GET", "/v1/devices/\(token)")
            #expect(device == 200)
            let stored = try await harness.call("GET", "/v1/devices/\(token)").1
            #expect(stored["tags"].array.map(\.string) == ["vip"])
            #expect(stored["timeZone"].string == nil)
        }
    }

    @Test("a reply is at most 4096 bytes: 413 naming the field past it, and nothing recorded")
    func replyLimit() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            func reply(_ text: String) async throws -> (Int, JSON) {
                try await harness.call(
                    "POST", "/v1/feedback", key: harness.publishableKey,
                    body: ["event": "action", "action": "reply", "text": text, "apnsID": apnsID, "token": token])
            }
            let (over, answer) = try await reply(String(repeating: "é", count: 2049))
            #expect(over == 413)
            #expect(answer["error"]["field"].string == "text")
            #expect(answer["error"]["message"].string?.contains("4096") == true)
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["replies"].int == 0)
            let (fits, _) = try await reply(String(repeating: "a", count: 4096))
            #expect(fits == 202)
            let (huge, _) = try await reply(String(repeating: "a", count: 100_000))
            #expect(huge == 413 || huge == 400)
        }
    }
}
