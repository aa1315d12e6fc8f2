import APNSCore
import APNSGateway
import Crypto
import Foundation
import TestPacing
import Testing

/// Apple's channel management API (reference K.1) on the gateway's management port, driven by curl.
@Suite("Channel management: lifecycle and every reason (curl --http2)", .startsServers)
struct ChannelManagementTests {
    static let channels = "/1/apps/com.example.app/channels"

    @Test("create 201 with an apns-channel-id, read 200, list, delete 204, then ChannelNotRegistered")
    func lifecycle() async throws {
        try await GatewayHarness.with { gateway, _ in
            let requestID = "2288cf3f-70d8-46a6-97d7-dd5d00867127"
            let created = try await gateway.manage(
                "POST", Self.channels, headers: ["apns-request-id": requestID],
                body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
            #expect(created.status == 201)
            #expect(created.body.isEmpty)
            #expect(created.headers["apns-request-id"] == requestID)
            let id = try #require(created.headers["apns-channel-id"])
            #expect(Data(base64Encoded: id) != nil)

            let read = try await gateway.manage("GET", Self.channels, headers: ["apns-channel-id": id])
            #expect(read.status == 200)
            #expect(read.headers["apns-request-id"]?.count == 36, "generated when the request has none")
            let configuration = try JSONValue(parsing: Data(read.body.utf8))
            #expect(configuration["message-storage-policy"]?.number?.intValue == 1)
            #expect(configuration["push-type"]?.string == "LiveActivity")

            let other = try await gateway.manage(
                "POST", Self.channels, body: #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#)
            let otherID = try #require(other.headers["apns-channel-id"])
            #expect(otherID != id, "IDs are random")
            let listed = try await gateway.manage("GET", "/1/apps/com.example.app/all-channels")
            #expect(listed.status == 200)
            let ids = try JSONValue(parsing: Data(listed.body.utf8))["channels"]?.array?.compactMap(\.string)
            #expect(Set(ids ?? []) == [id, otherID])

            let deleted = try await gateway.manage("DELETE", Self.channels, headers: ["apns-channel-id": id])
            #expect(deleted.status == 204)
            #expect(deleted.headers["apns-request-id"]?.count == 36)
            let gone = try await gateway.manage("GET", Self.channels, headers: ["apns-channel-id": id])
            #expect(gone.status == 400)
            #expect(try APNSErrorResponse(data: Data(gone.body.utf8)).reason == .channelNotRegistered)
            let after = try await gateway.manage("GET", "/1/apps/com.example.app/all-channels")
            #expect(try JSONValue(parsing: Data(after.body.utf8))["channels"]?.array?.compactMap(\.string) == [otherID])
        }
    }

    /// One rejection: how to provoke it and what APNs answers.
    struct Rejection: Sendable, CustomTestStringConvertible {
        var reason: String
        var status: Int
        var method = "POST"
        var path = ChannelManagementTests.channels
        var headers: [String: String] = [:]
        var omitAuthorization = false
        var body: String? = #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#
        var label = ""
        var testDescription: String { label.isEmpty ? reason : "\(reason) (\(label))" }
    }

    static let rejections: [Rejection] = [
        Rejection(reason: "BadPath", status: 404, path: "/1/apps/com.example.app/channel"),
        Rejection(reason: "BadPath", status: 404, path: "/3/device/abcd", label: "a device push on this port"),
        Rejection(reason: "MethodNotAllowed", status: 405, method: "PUT"),
        Rejection(reason: "MethodNotAllowed", status: 405, path: "/1/apps/com.example.app/all-channels"),
        Rejection(reason: "BadMessageId", status: 400, headers: ["apns-request-id": "nope"]),
        Rejection(reason: "MissingProviderToken", status: 403, omitAuthorization: true),
        Rejection(reason: "InvalidProviderToken", status: 403, headers: ["authorization": "bearer not.a.token"]),
        Rejection(
            reason: "TopicDisallowed", status: 400, path: "/1/apps/com.example.app.push-type.liveactivity/channels"),
        Rejection(reason: "PayloadEmpty", status: 400, body: nil),
        Rejection(reason: "BadRequestPayload", status: 400, body: "not json"),
        Rejection(
            reason: "BadRequestParams", status: 400,
            body: #"{"message-storage-policy": 0, "push-type": "LiveActivity", "name": "x"}"#, label: "unknown key"),
        Rejection(
            reason: "BadRequestParams", status: 400,
            body: #"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#,
            label: "policy 2"),
        Rejection(reason: "MissingPushType", status: 400, body: #"{"message-storage-policy": 0}"#),
        Rejection(
            reason: "InvalidPushType", status: 400, body: #"{"message-storage-policy": 0, "push-type": "Alert"}"#),
        Rejection(reason: "MissingChannelId", status: 400, method: "GET"),
        Rejection(reason: "BadChannelId", status: 400, method: "GET", headers: ["apns-channel-id": "not base64!"]),
        Rejection(
            reason: "BadChannelId", status: 400, method: "DELETE",
            headers: ["apns-channel-id": Data(repeating: 1, count: 120).base64EncodedString()], label: "too long"),
        Rejection(
            reason: "ChannelNotRegistered", status: 400, method: "GET",
            headers: ["apns-channel-id": "dHN0LXNyY2gtY2hubA=="]
        ),
    ]

    @Test("each rejection has Apple's status and reason, with apns-request-id", arguments: rejections)
    func rejection(_ rejection: Rejection) async throws {
        try await GatewayHarness.with { gateway, _ in
            var headers = rejection.headers
            if rejection.omitAuthorization { headers["authorization"] = "" }
            let reply = try await gateway.manage(
                rejection.method, rejection.path, headers: headers, body: rejection.body)
            #expect(reply.status == rejection.status)
            #expect(try APNSErrorResponse(data: Data(reply.body.utf8)).reason.rawValue == rejection.reason)
            #expect(reply.headers["apns-request-id"]?.count == 36)
        }
    }

    @Test("a key for other apps is TopicMismatch")
    func topicMismatch() async throws {
        try await GatewayHarness.with { gateway, _ in
            let other = P256.Signing.PrivateKey()
            try gateway.server.keys.add(
                pem: other.publicKey.pemRepresentation, keyID: "XYZ987WVUT", teamID: "DEF123GHIJ",
                topics: ["com.example.other"])
            let token = try await APNSProviderTokenSigner(
                privateKeyPEM: other.pemRepresentation, keyID: "XYZ987WVUT", teamID: "DEF123GHIJ"
            ).token(issuedAt: Date())
            let reply = try await gateway.manage(
                "GET", "/1/apps/com.example.app/all-channels",
                headers: ["authorization": token.authorizationHeaderValue])
            #expect(reply.status == 403)
            #expect(try APNSErrorResponse(data: Data(reply.body.utf8)).reason == .topicMismatch)
        }
    }

    @Test("past 10,000 channels per app and environment: CannotCreateChannelConfig; another app is not counted")
    func channelLimit() async throws {
        try await GatewayHarness.with { gateway, _ in
            let app = BroadcastApp(bundleID: "com.example.app", environment: .development)
            for _ in 0..<10_000 { _ = try gateway.server.channels.create(for: app, storagePolicy: .noMessageStored) }
            let body = #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#
            let refused = try await gateway.manage("POST", Self.channels, body: body)
            #expect(refused.status == 400)
            #expect(try APNSErrorResponse(data: Data(refused.body.utf8)).reason == .cannotCreateChannelConfig)
            let production = try await gateway.manage(
                "POST", Self.channels, headers: ["host": "api-manage-broadcast.push.apple.com"], body: body)
            #expect(production.status == 201, "production has its own 10,000")
            let otherApp = try await gateway.manage("POST", "/1/apps/com.example.other/channels", body: body)
            #expect(otherApp.status == 201)
        }
    }

    @Test("broadcast switched off for an app through the admin API: FeatureNotEnabled, until switched on")
    func featureNotEnabled() async throws {
        try await GatewayHarness.with { gateway, _ in
            let off = try await gateway.admin(
                "POST", "/admin/apps/com.example.app/broadcast", body: #"{"enabled": false}"#)
            #expect(off.status == 200)
            let body = #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#
            let refused = try await gateway.manage("POST", Self.channels, body: body)
            #expect(refused.status == 400)
            #expect(try APNSErrorResponse(data: Data(refused.body.utf8)).reason == .featureNotEnabled)
            _ = try await gateway.admin("POST", "/admin/apps/com.example.app/broadcast", body: #"{"enabled": true}"#)
            #expect(try await gateway.manage("POST", Self.channels, body: body).status == 201)
        }
    }
}

extension GatewayHarness {
    /// A channel management request on the management port, with a valid provider token unless `headers` has an
    /// `authorization` (an empty one sends none).
    func manage(
        _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> Reply {
        var all = ["authorization": try await authorization()]
        all.merge(headers) { $1 }
        return try await curl(method: method, path: path, headers: all, body: body, port: managePort)
    }
}
