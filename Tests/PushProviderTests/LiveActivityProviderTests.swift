import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

/// The provider's Live Activities: activity tokens apps register, notifications to an activity and to a user's
/// activities of a type, channels made at the gateway's management port, broadcasts to them, the priority-10 budget.
@Suite("Live Activities through the provider", .startsServers)
struct LiveActivityProviderTests {
    @Test("activity tokens: registered, listed by type, user and activity, checked, deleted")
    func activityTokens() async throws {
        try await ProviderHarness.with { harness in
            let start = ["token": "aa01", "kind": "pushToStart", "attributesType": "ScoreAttributes", "userID": "ana"]
            var (status, answer) = try await harness.call("POST", "/v1/activities/tokens", body: start)
            #expect(status == 201, "\(answer)")
            (status, answer) = try await harness.call(
                "POST", "/v1/activities/tokens",
                body: [
                    "token": "BB02", "kind": "update", "attributesType": "ScoreAttributes", "activityID": "match-1",
                    "userID": "ana",
                ])
            #expect(status == 201 && answer["token"].string == "bb02", "tokens are kept in lowercase: \(answer)")
            (status, _) = try await harness.call("POST", "/v1/activities/tokens", body: start)
            #expect(status == 200, "registering again updates")

            (status, answer) = try await harness.call("GET", "/v1/activities/tokens?type=ScoreAttributes&kind=update")
            #expect(answer.array.map { $0["activityID"].string } == ["match-1"])
            (status, answer) = try await harness.call("GET", "/v1/activities/tokens?user=ana")
            #expect(answer.array.count == 2)

            // Each mistake is named.
            for (body, field) in [
                (["token": "cc", "kind": "later", "attributesType": "T"], "kind"),
                (["token": "cc", "kind": "update", "attributesType": "T"], "activityID"),
                (["token": "cc", "kind": "pushToStart", "attributesType": "T", "activityID": "x"], "activityID"),
                (["token": "xyz", "kind": "pushToStart", "attributesType": "T"], "token"),
                (["token": "cc", "kind": "pushToStart", "attributesType": ""], "attributesType"),
                (["token": "cc", "kind": "pushToStart", "attributesType": "T", "activityId": "x"], "activityId"),
            ] {
                (status, answer) = try await harness.call("POST", "/v1/activities/tokens", body: body)
                #expect(status == 400 && answer["error"]["field"].string == field, "\(body): \(answer)")
            }
            // The publishable key ships in the app: binding a user needs that user's token.
            (status, answer) = try await harness.call(
                "POST", "/v1/activities/tokens", key: harness.publishableKey,
                body: ["token": "dd04", "kind": "pushToStart", "attributesType": "T", "userID": "bob"])
            #expect(status == 403, "\(answer)")

            // A token not sent again since the device's app token was retired (the app registered a new one) is stale;
            // registering the same token again (every launch) is not.
            let device = String(repeating: "ab", count: 32)
            _ = try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: ["token": device])
            _ = try await harness.call(
                "POST", "/v1/activities/tokens",
                body: ["token": "ee05", "kind": "pushToStart", "attributesType": "T", "deviceToken": device])
            (_, answer) = try await harness.call("GET", "/v1/activities/tokens?type=T")
            #expect(answer[0]["stale"].bool == false, "\(answer)")
            _ = try await harness.call("POST", "/v1/devices", key: harness.publishableKey, body: ["token": device])
            (_, answer) = try await harness.call("GET", "/v1/activities/tokens?type=T")
            #expect(answer[0]["stale"].bool == false, "the same token again: \(answer)")
            _ = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey,
                body: ["token": String(repeating: "cd", count: 32), "replaces": device])
            (_, answer) = try await harness.call("GET", "/v1/activities/tokens?type=T")
            #expect(answer[0]["stale"].bool == true, "the device's token was replaced after it: \(answer)")

            (status, _) = try await harness.call("DELETE", "/v1/activities/tokens/aa01")
            #expect(status == 204)
            (status, _) = try await harness.call("DELETE", "/v1/activities/tokens/aa01")
            #expect(status == 404)
        }
    }

    @Test("a push to an activity and to a user's activities of a type; priority 10 counts against the budget")
    func pushToActivities() async throws {
        try await ProviderHarness.with { harness in
            let updateToken = try harness.gatewayToken()
            let startToken = try harness.gatewayToken()
            _ = try await harness.call(
                "POST", "/v1/activities/tokens",
                body: [
                    "token": updateToken, "kind": "update", "attributesType": "ScoreAttributes",
                    "activityID": "match-1", "userID": "ana",
                ])
            _ = try await harness.call(
                "POST", "/v1/activities/tokens",
                body: [
                    "token": startToken, "kind": "pushToStart", "attributesType": "ScoreAttributes", "userID": "ana",
                ])

            let update: [String: Any] = [
                "event": "update", "timestamp": 100, "content-state": ["score": "1-0"],
            ]
            var (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["activity": "match-1"], "payload": ["aps": update]])
            #expect(status == 202, "\(created)")
            #expect(created["pushType"].string == "liveactivity" && created["stats"]["targeted"].int == 1)
            var report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == 1, "\(report)")
            let stored = try #require(
                harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: updateToken)))
            #expect(stored.pushType == .liveactivity)
            #expect(stored.topic == ProviderHarness.bundleID + ".push-type.liveactivity")

            // A start goes to the user's push-to-start token of the type.
            let start: [String: Any] = [
                "event": "start", "timestamp": 10, "attributes-type": "ScoreAttributes",
                "attributes": ["home": "Lions", "away": "Bears"], "content-state": ["score": "0-0"],
                "alert": ["title": "Kick-off", "body": "Lions v Bears"],
            ]
            (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["activities": ["type": "ScoreAttributes", "user": "ana"]], "payload": ["aps": start],
                ])
            #expect(status == 202 && created["stats"]["targeted"].int == 1, "\(created)")
            report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == 1, "\(report)")
            #expect(
                harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: startToken)) != nil)

            // Priority 10 (the default) counted once for the update token; priority 5 is not.
            (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["activity": "match-1"], "payload": ["aps": update], "priority": 5])
            #expect(status == 202)
            let (_, tokens) = try await harness.call("GET", "/v1/activities/tokens?activity=match-1")
            #expect(tokens[0]["priority10ThisHour"].int == 1, "\(tokens)")
            // A flood of priority 10 is warned about once past the provider's threshold.
            var warnings: [String?] = []
            var updates: [String] = []
            for _ in 0..<10 {
                (_, created) = try await harness.call(
                    "POST", "/v1/notifications", body: ["target": ["activity": "match-1"], "payload": ["aps": update]])
                warnings.append(created["warning"].string)
                updates.append(try #require(created["id"].string))
            }
            #expect(warnings.dropLast().allSatisfy { $0 == nil }, "\(warnings)")
            #expect(warnings.last??.contains("11 priority-10 pushes this hour") == true, "\(warnings)")

            // Mistakes are named before anything is stored.
            for (body, field) in [
                (["target": ["activity": "match-1"], "payload": ["aps": start]], "payload.aps.event"),
                (["target": ["activity": "match-1"], "payload": ["aps": update], "pushType": "alert"], "pushType"),
                (
                    ["target": ["activity": "match-1"], "payload": ["aps": update], "encrypted": ["a": 1]],
                    "encrypted"
                ),
                (["target": ["activities": ["user": "ana"]], "payload": ["aps": update]], "target.activities.type"),
            ] as [([String: Any], String)] {
                let (status, answer) = try await harness.call("POST", "/v1/notifications", body: body)
                #expect(status == 400 && answer["error"]["field"].string == field, "\(body): \(answer)")
            }
            (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["activity": "match-9"], "payload": ["aps": update]])
            #expect(created["warning"].string?.contains("no activity token") == true, "\(created)")

            // The activity ended on the device: APNs answers 410 for its token, and the provider forgets it. The
            // updates above are answered first: one still in flight would meet the 410 and take the token away
            // before the push below is targeted.
            for id in updates { _ = try await harness.finished(id) }
            try harness.gateway.server.registry.invalidate(
                try APNSDeviceToken(hex: updateToken), reason: .unregistered, at: Date())
            (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["activity": "match-1"], "payload": ["aps": update]])
            report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["rejected"]["Unregistered"].int == 1, "\(report)")
            let (_, left) = try await harness.call("GET", "/v1/activities/tokens?activity=match-1")
            #expect(left.array.isEmpty, "\(left)")
        }
    }

    @Test("a channel made through the provider at the gateway, a broadcast to its subscribers, deleted")
    func channelBroadcast() async throws {
        try await ProviderHarness.with { harness in
            let gateway = harness.gateway
            var (status, answer) = try await harness.call("POST", "/v1/channels", body: ["name": "final"])
            #expect(status == 409, "no channel endpoint is known for a local gateway: \(answer)")
            (status, answer) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", key: harness.adminToken,
                body: ["channelEndpoint": "https://localhost:\(gateway.managePort)"])
            #expect(status == 400 && answer["error"]["field"].string == "channelEndpoint", "another host: \(answer)")
            (status, answer) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)",
                body: ["channelEndpoint": "https://127.0.0.1:\(gateway.managePort)"])
            #expect(status == 403, "an API key may not point the provider at any port of the host: \(answer)")
            (status, answer) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", key: harness.adminToken,
                body: ["channelEndpoint": "https://127.0.0.1:\(gateway.managePort)"])
            #expect(status == 200, "\(answer)")

            (status, answer) = try await harness.call(
                "POST", "/v1/channels", body: ["name": "final", "storagePolicy": 1])
            #expect(status == 201, "\(answer)")
            let id = try #require(answer["id"].string)
            let channelID = try #require(APNSChannelID(rawValue: id))
            #expect(gateway.server.channels.subscriberCount(channelID) == 0, "the gateway has the channel")
            (status, answer) = try await harness.call("POST", "/v1/channels", body: ["storagePolicy": 2])
            #expect(status == 400 && answer["error"]["field"].string == "storagePolicy")
            (_, answer) = try await harness.call("GET", "/v1/channels")
            #expect(answer["count"].int == 1 && answer["limit"].int == 10_000)

            // A device subscribed to the channel receives the broadcast; it acknowledges it.
            let courier = try await CourierClient.connect(
                host: "127.0.0.1", port: gateway.port, caPEM: gateway.server.certificateAuthority.caCertificatePEM)
            let registration = try await courier.register(bundleID: ProviderHarness.bundleID, environment: .development)
            try await courier.subscribe(registration.token, to: channelID)
            var events = courier.events.makeAsyncIterator()
            let aps: [String: Any] = ["event": "update", "timestamp": 5, "content-state": ["score": "2-1"]]
            (status, answer) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["channel": id], "payload": ["aps": aps], "expiration": 4_000_000_000])
            #expect(status == 202 && answer["stats"]["targeted"].int == 1, "\(answer)")
            let report = try await harness.finished(try #require(answer["id"].string))
            #expect(report["stats"]["accepted"].int == 1, "\(report)")
            guard case .broadcast(let broadcast, let token)? = await events.next() else {
                Issue.record("the subscribed device got no broadcast")
                return
            }
            #expect(String(decoding: broadcast.payload, as: UTF8.self).contains("2-1"))
            courier.acknowledge(broadcast, token: token)
            await courier.close()
            // A broadcast reached no one token: the publishable key cannot report on it, not even with an empty one.
            let delivery = try #require(
                try await harness.call("GET", "/v1/notifications/\(answer["id"].string ?? "")/deliveries").1.array
                    .first)
            let apnsID = try #require(delivery["apnsID"].string)
            for claimed in ["", registration.token.hex] {
                let (refused, why) = try await harness.call(
                    "POST", "/v1/feedback", key: harness.publishableKey,
                    body: ["event": "delivered", "apnsID": apnsID, "token": claimed])
                #expect(refused == 404, "token \(claimed): \(why)")
            }

            // Not a channel of the app, a start on a channel: named, nothing queued.
            (status, answer) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["channel": "dHN0LXNyY2gtY2hubA=="], "payload": ["aps": aps]])
            #expect(status == 400 && answer["error"]["field"].string == "target.channel", "\(answer)")
            (status, answer) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["channel": "not base64!"], "payload": ["aps": aps]])
            #expect(status == 400 && answer["error"]["field"].string == "target.channel", "\(answer)")

            let path =
                "/v1/channels/" + id.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            (status, _) = try await harness.call("GET", path)
            #expect(status == 200)
            (status, _) = try await harness.call("DELETE", path)
            #expect(status == 204)
            (status, _) = try await harness.call("GET", path)
            #expect(status == 404)
            (status, answer) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["channel": id], "payload": ["aps": aps]])
            #expect(status == 400, "a deleted channel is no target: \(answer)")
        }
    }
}
