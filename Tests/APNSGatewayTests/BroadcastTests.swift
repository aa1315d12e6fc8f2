import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

/// Broadcasts (reference K.2, K.3): `POST /4/broadcasts/apps/<bundle ID>` on the push port, driven by curl, reaching
/// the devices whose activities subscribed over the courier.
@Suite("Broadcasts: every reason, fan-out to subscribers, the stored message, restarts", .startsServers)
struct BroadcastTests {
    static let path = "/4/broadcasts/apps/com.example.app"
    static let update = #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"score":"1-0"}}}"#

    /// One rejection: how to provoke it and what APNs answers. `channel` picks the channel the request names.
    struct Rejection: Sendable, CustomTestStringConvertible {
        enum Channel: Sendable { case noStorage, storing, none }
        var reason: String
        var status: Int
        var method = "POST"
        var path = BroadcastTests.path
        var channel = Channel.noStorage
        var headers: [String: String] = [:]
        var omitAuthorization = false
        var body: String? = BroadcastTests.update
        var label = ""
        var testDescription: String { label.isEmpty ? reason : "\(reason) (\(label))" }
    }

    static let rejections: [Rejection] = [
        Rejection(reason: "MethodNotAllowed", status: 405, method: "GET"),
        Rejection(reason: "BadPath", status: 404, path: "/4/broadcasts/apps/"),
        Rejection(reason: "BadPath", status: 404, path: "/4/broadcasts/apps/com.example.app/more"),
        Rejection(reason: "BadMessageId", status: 400, headers: ["apns-request-id": "nope"]),
        Rejection(reason: "MissingProviderToken", status: 403, omitAuthorization: true),
        Rejection(reason: "InvalidProviderToken", status: 403, headers: ["authorization": "bearer not.a.token"]),
        Rejection(
            reason: "TopicDisallowed", status: 400, path: "/4/broadcasts/apps/com.example.app.push-type.liveactivity"),
        Rejection(reason: "MissingPushType", status: 400, headers: ["apns-push-type": ""]),
        Rejection(reason: "InvalidPushType", status: 400, headers: ["apns-push-type": "alert"]),
        Rejection(reason: "MissingChannelId", status: 400, channel: .none),
        Rejection(reason: "BadChannelId", status: 400, headers: ["apns-channel-id": "%%%"]),
        Rejection(reason: "ChannelNotRegistered", status: 400, headers: ["apns-channel-id": "dHN0LXNyY2gtY2hubA=="]),
        Rejection(reason: "BadPriority", status: 400, headers: ["apns-priority": "7"]),
        Rejection(reason: "BadPriority", status: 400, headers: ["apns-priority": ""], label: "missing"),
        Rejection(reason: "BadExpirationDate", status: 400, headers: ["apns-expiration": ""], label: "missing"),
        Rejection(reason: "BadExpirationDate", status: 400, headers: ["apns-expiration": "tomorrow"]),
        Rejection(
            reason: "BadExpirationDate", status: 400, headers: ["apns-expiration": "4102444800"],
            label: "nonzero on a No Message Stored channel"),
        Rejection(reason: "PayloadEmpty", status: 400, body: nil),
        Rejection(reason: "BadRequestPayload", status: 400, body: "not json"),
        Rejection(
            reason: "PayloadTooLarge", status: 413,
            body: #"{"aps":{"event":"update","x":""# + String(repeating: "a", count: 5100) + #""}}"#),
    ]

    @Test("each rejection has Apple's status and reason, with apns-request-id", arguments: rejections)
    func rejection(_ rejection: Rejection) async throws {
        try await GatewayHarness.with { gateway, _ in
            let app = BroadcastApp(bundleID: "com.example.app", environment: .development)
            let channel: APNSChannelID? =
                switch rejection.channel {
                case .noStorage: try gateway.server.channels.create(for: app, storagePolicy: .noMessageStored).id
                case .storing: try gateway.server.channels.create(for: app, storagePolicy: .mostRecentMessageStored).id
                case .none: nil
                }
            var headers = ["apns-push-type": "liveactivity", "apns-priority": "10", "apns-expiration": "0"]
            if let channel { headers["apns-channel-id"] = channel.rawValue }
            headers["authorization"] = rejection.omitAuthorization ? "" : try await gateway.authorization()
            headers.merge(rejection.headers) { $1 }
            let reply = try await gateway.curl(
                method: rejection.method, path: rejection.path, headers: headers, body: rejection.body)
            #expect(reply.status == rejection.status)
            #expect(try APNSErrorResponse(data: Data(reply.body.utf8)).reason.rawValue == rejection.reason)
            #expect(reply.headers["apns-request-id"]?.count == 36)
            #expect(reply.headers["apns-id"] == nil)
        }
    }

    @Test("switched off for the app: FeatureNotEnabled; a fault armed for the channel: its status and reason")
    func switchedOffAndInjected() async throws {
        try await GatewayHarness.with { gateway, _ in
            let channel = try await gateway.makeChannel(policy: 0)
            _ = try await gateway.admin("POST", "/admin/apps/com.example.app/broadcast", body: #"{"enabled": false}"#)
            let off = try await gateway.broadcast(channel)
            #expect(off.status == 400)
            #expect(try APNSErrorResponse(data: Data(off.body.utf8)).reason == .featureNotEnabled)
            _ = try await gateway.admin("POST", "/admin/apps/com.example.app/broadcast", body: #"{"enabled": true}"#)
            let armed = try await gateway.admin(
                "POST", "/admin/faults",
                body: #"{"status": 429, "reason": "TooManyRequests", "channel-id": "\#(channel.rawValue)"}"#)
            #expect(armed.status == 201)
            let throttled = try await gateway.broadcast(channel)
            #expect(throttled.status == 429)
            #expect(try APNSErrorResponse(data: Data(throttled.body.utf8)).reason == .tooManyRequests)
            #expect(try await gateway.broadcast(channel).status == 200, "the fault was used up")
        }
    }

    @Test("200 with apns-request-id and apns-unique-id; it reaches the subscribed device and not the others")
    func reachesSubscribersOnly() async throws {
        try await GatewayHarness.with { gateway, _ in
            let channel = try await gateway.makeChannel(policy: 0)
            let other = try await gateway.makeChannel(policy: 0)
            let subscribed = try await gateway.courier()
            let subscribedToken = try await subscribed.register(bundleID: "com.example.app", environment: .development)
                .token
            try await subscribed.subscribe(subscribedToken, to: channel)
            let elsewhere = try await gateway.courier()
            let elsewhereToken = try await elsewhere.register(bundleID: "com.example.app", environment: .development)
                .token
            try await elsewhere.subscribe(elsewhereToken, to: other)

            let requestID = "eabeae54-14a8-11e5-b60b-1697f925ec7b"
            let reply = try await gateway.broadcast(channel, headers: ["apns-request-id": requestID])
            #expect(reply.status == 200)
            #expect(reply.body.isEmpty)
            #expect(reply.headers["apns-request-id"] == requestID)
            let uniqueID = try #require(reply.headers["apns-unique-id"])

            let (broadcast, token) = try await subscribed.nextBroadcast()
            #expect(token == subscribedToken)
            #expect(broadcast.uniqueID.lowercasedText == uniqueID)
            #expect(broadcast.channelID == channel)
            #expect(String(decoding: broadcast.payload, as: UTF8.self) == Self.update)
            subscribed.acknowledge(broadcast, token: token)

            // The other device's next event is a push sent after the broadcast: the broadcast never came to it.
            #expect(try await gateway.push(elsewhereToken).status == 200)
            if case .broadcast = try await elsewhere.nextEvent() {
                Issue.record("a broadcast reached a non-subscriber")
            }

            let report = try await gateway.waitForAcknowledgements(uniqueID: uniqueID, count: 1)
            #expect(report["reached"]?.number?.intValue == 1)
            await subscribed.close()
            await elsewhere.close()
        }
    }

    @Test("Most Recent Message Stored: a device that subscribes later gets the newest broadcast; policy 0 keeps none")
    func storedForLaterSubscribers() async throws {
        try await GatewayHarness.with { gateway, _ in
            let storing = try await gateway.makeChannel(policy: 1)
            let expiration = String(Int(Date().timeIntervalSince1970) + 3600)
            let first = try await gateway.broadcast(storing, headers: ["apns-expiration": expiration])
            let newest = try await gateway.broadcast(storing, headers: ["apns-expiration": expiration])
            #expect(first.status == 200 && newest.status == 200)
            let notStoring = try await gateway.makeChannel(policy: 0)
            #expect(try await gateway.broadcast(notStoring).status == 200)

            let device = try await gateway.courier()
            let token = try await device.register(bundleID: "com.example.app", environment: .development).token
            try await device.subscribe(token, to: notStoring)
            try await device.subscribe(token, to: storing)
            let (stored, _) = try await device.nextBroadcast()
            #expect(stored.uniqueID.lowercasedText == newest.headers["apns-unique-id"])
            #expect(stored.channelID == storing)
            await device.close()
        }
    }

    @Test("channels, the broadcast switch and a stored message survive a restart")
    func restart() async throws {
        let first = try await GatewayHarness.start()
        let channel = try await first.makeChannel(policy: 1)
        let expiration = String(Int(Date().timeIntervalSince1970) + 3600)
        let stored = try await first.broadcast(channel, headers: ["apns-expiration": expiration])
        #expect(stored.status == 200)
        _ = try await first.admin("POST", "/admin/apps/com.example.off/broadcast", body: #"{"enabled": false}"#)
        try await first.server.shutdown()

        let second = try await GatewayHarness.start(directory: first.directory, key: first.key)
        try await second.base.run {
            let read = try await second.manage(
                "GET", ChannelManagementTests.channels, headers: ["apns-channel-id": channel.rawValue])
            #expect(read.status == 200)
            let off = try await second.manage("GET", "/1/apps/com.example.off/all-channels")
            #expect(try APNSErrorResponse(data: Data(off.body.utf8)).reason == .featureNotEnabled)
            let device = try await second.courier()
            let token = try await device.register(bundleID: "com.example.app", environment: .development).token
            try await device.subscribe(token, to: channel)
            let (message, _) = try await device.nextBroadcast()
            #expect(message.uniqueID.lowercasedText == stored.headers["apns-unique-id"])
            await device.close()
        }
    }

    @Test("a device cannot subscribe to another app's channel or one that does not exist")
    func subscribeRefused() async throws {
        try await GatewayHarness.with { gateway, _ in
            let othersChannel = try gateway.server.channels.create(
                for: BroadcastApp(bundleID: "com.example.other", environment: .development),
                storagePolicy: .noMessageStored)
            let device = try await gateway.courier()
            let token = try await device.register(bundleID: "com.example.app", environment: .development).token
            await #expect(throws: GatewayDataError.self) { try await device.subscribe(token, to: othersChannel.id) }
            await device.close()
        }
    }
}

extension GatewayHarness {
    /// Makes a channel of `com.example.app` through the management API.
    func makeChannel(policy: Int) async throws -> APNSChannelID {
        let created = try await manage(
            "POST", ChannelManagementTests.channels,
            body: #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#)
        guard created.status == 201, let id = created.headers["apns-channel-id"].flatMap(APNSChannelID.init) else {
            throw GatewayDataError("the channel was not made: \(created.status) \(created.body)")
        }
        return id
    }

    /// A broadcast on `channel` of `com.example.app` with valid headers, `headers` on top.
    func broadcast(
        _ channel: APNSChannelID, body: String = BroadcastTests.update, headers: [String: String] = [:]
    ) async throws -> Reply {
        var all = [
            "authorization": try await authorization(), "apns-push-type": "liveactivity", "apns-priority": "10",
            "apns-expiration": "0", "apns-channel-id": channel.rawValue,
        ]
        all.merge(headers) { $1 }
        return try await curl(path: BroadcastTests.path, headers: all, body: body)
    }

    /// The gateway's report of a broadcast once `count` devices acknowledged it.
    func waitForAcknowledgements(uniqueID: String, count: Int) async throws -> JSONValue {
        var found: JSONValue?
        _ = try await until(server.channels.changes) {
            let reports = try await admin("GET", "/admin/broadcasts").json["broadcasts"]?.array ?? []
            found = reports.first { $0["apns-unique-id"]?.string == uniqueID }
            return (found?["acknowledged"]?.number?.intValue ?? 0) >= count
        }
        if let found, (found["acknowledged"]?.number?.intValue ?? 0) >= count { return found }
        throw GatewayDataError("broadcast \(uniqueID) was never acknowledged \(count) time(s)")
    }
}

extension CourierClient {
    /// The next broadcast, skipping other events; fails if the connection closes first.
    func nextBroadcast() async throws -> (ChannelBroadcast, APNSDeviceToken) {
        while true {
            if case .broadcast(let broadcast, let token) = try await nextEvent() { return (broadcast, token) }
        }
    }

    /// The next notification or broadcast; fails if the connection closes first.
    func nextEvent() async throws -> Event {
        for await event in events {
            switch event {
            case .notification, .broadcast: return event
            case .closed: throw GatewayDataError("the courier closed before anything arrived")
            case .error: continue
            }
        }
        throw GatewayDataError("the courier closed before anything arrived")
    }
}
