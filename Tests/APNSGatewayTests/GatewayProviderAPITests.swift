import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@Suite("The gateway answers providers as APNs does (curl --http2)", .startsServers)
struct GatewayProviderAPITests {
    @Test("an accepted push: 200, the apns-id echoed, an apns-unique-id in development")
    func accepted() async throws {
        try await GatewayHarness.with { gateway, device in
            let reply = try await gateway.curl(
                path: "/3/device/\(device.token.hex)",
                headers: [
                    "authorization": try await gateway.authorization(), "apns-topic": "com.example.app",
                    "apns-push-type": "alert", "apns-id": "eabeae54-14a8-11e5-b60b-1697f925ec7b",
                ],
                body: #"{"aps":{"alert":"Hello"}}"#
            )
            #expect(reply.status == 200)
            #expect(reply.headers["apns-id"] == "eabeae54-14a8-11e5-b60b-1697f925ec7b")
            #expect(reply.headers["apns-unique-id"]?.count == 36)
            #expect(reply.body.isEmpty)
            #expect(FileManager.default.fileExists(atPath: gateway.server.certificateAuthority.caPath.path))
        }
    }

    /// One rejection: how to provoke it and what APNs answers.
    struct Rejection: Sendable, CustomTestStringConvertible {
        var reason: String
        var status: Int
        var method = "POST"
        var path: String? = nil
        var headers: [String: String] = [:]
        var omitAuthorization = false
        var body = #"{"aps":{"alert":"Hello"}}"#
        var testDescription: String { reason }
    }

    static let rejections: [Rejection] = [
        Rejection(reason: "MethodNotAllowed", status: 405, method: "PUT"),
        Rejection(reason: "BadPath", status: 404, path: "/3/devices/abc"),
        Rejection(reason: "MissingDeviceToken", status: 400, path: "/3/device/"),
        Rejection(reason: "BadPath", status: 404, path: "/3/device/" + String(repeating: "ab", count: 32) + "/x"),
        Rejection(reason: "BadPath", status: 404, path: "/3/device/" + String(repeating: "ab", count: 32) + "?x=1"),
        // The token is decoded after the provider token is checked, as APNs orders its checks.
        Rejection(reason: "MissingProviderToken", status: 403, path: "/3/device/xyz", omitAuthorization: true),
        Rejection(reason: "MissingProviderToken", status: 403, omitAuthorization: true),
        Rejection(reason: "InvalidProviderToken", status: 403, headers: ["authorization": "bearer not.a.token"]),
        Rejection(reason: "BadDeviceToken", status: 400, path: "/3/device/" + String(repeating: "ab", count: 32)),
        Rejection(reason: "BadDeviceToken", status: 400, path: "/3/device/xyz"),
        Rejection(reason: "MissingTopic", status: 400, headers: ["apns-topic": ""]),
        Rejection(reason: "DeviceTokenNotForTopic", status: 400, headers: ["apns-topic": "com.example.other"]),
        Rejection(reason: "DeviceTokenNotForTopic", status: 400, headers: ["apns-push-type": "voip"]),
        Rejection(reason: "InvalidPushType", status: 400, headers: ["apns-push-type": "banner"]),
        Rejection(reason: "BadPriority", status: 400, headers: ["apns-priority": "7"]),
        Rejection(reason: "BadExpirationDate", status: 400, headers: ["apns-expiration": "tomorrow"]),
        Rejection(reason: "BadMessageId", status: 400, headers: ["apns-id": "nope"]),
        Rejection(
            reason: "BadCollapseId", status: 400, headers: ["apns-collapse-id": String(repeating: "c", count: 65)]),
        Rejection(reason: "BadTopic", status: 400, headers: ["apns-topic": "com example"]),
        Rejection(reason: "PayloadEmpty", status: 400, body: ""),
        Rejection(reason: "PayloadEmpty", status: 400, body: "not json"),
        Rejection(reason: "PayloadEmpty", status: 400, body: #"["aps"]"#),
        Rejection(reason: "PayloadEmpty", status: 400, body: #"{"aps":{"alert":"\ud800"}}"#),
        Rejection(
            reason: "PayloadTooLarge", status: 413,
            body: #"{"aps":{"alert":""# + String(repeating: "a", count: 4100) + #""}}"#),
    ]

    @Test("each rejection has APNs' status, reason and apns-id", arguments: rejections)
    func rejection(_ rejection: Rejection) async throws {
        try await GatewayHarness.with { gateway, device in
            var headers = ["apns-topic": "com.example.app", "apns-push-type": "alert"]
            if !rejection.omitAuthorization { headers["authorization"] = try await gateway.authorization() }
            headers.merge(rejection.headers) { $1 }
            if headers["apns-topic"] == "" { headers["apns-topic"] = nil }
            let reply = try await gateway.curl(
                method: rejection.method,
                path: rejection.path ?? "/3/device/\(device.token.hex)",
                headers: headers,
                body: rejection.body.isEmpty ? nil : rejection.body
            )
            #expect(reply.status == rejection.status)
            #expect(reply.headers["content-type"] == "application/json")
            let error = try APNSErrorResponse(data: Data(reply.body.utf8))
            #expect(error.reason.rawValue == rejection.reason)
            #expect(error.timestamp == nil)
            #expect(reply.headers["apns-id"]?.count == 36)
        }
    }

    @Test("a removed app: 410 Unregistered with the time it was removed, in milliseconds")
    func unregistered() async throws {
        try await GatewayHarness.with { gateway, _ in
            try await unregistered(gateway)
        }
    }

    private func unregistered(_ gateway: GatewayHarness) async throws {
        let created = try await gateway.curl(
            path: "/admin/devices", body: #"{"topic":"com.example.app","environment":"development"}"#)
        #expect(created.status == 201)
        let token = try #require(try JSONValue(parsing: Data(created.body.utf8))["token"]?.string)
        let before = Date()
        let removed = try await gateway.curl(method: "DELETE", path: "/admin/devices/\(token)")
        #expect(removed.status == 204)
        let reply = try await gateway.curl(
            path: "/3/device/\(token)",
            headers: ["authorization": try await gateway.authorization(), "apns-topic": "com.example.app"],
            body: #"{"aps":{"alert":"Hello"}}"#
        )
        #expect(reply.status == 410)
        let error = try APNSErrorResponse(data: Data(reply.body.utf8))
        #expect(error.reason == .unregistered)
        let removedAt = try #require(error.invalidSince)
        #expect(abs(removedAt.timeIntervalSince(before)) < 5)
    }

    @Test("a development token sent to the production host name is BadDeviceToken")
    func environmentMismatch() async throws {
        try await GatewayHarness.with { gateway, device in
            let reply = try await gateway.curl(
                path: "/3/device/\(device.token.hex)",
                headers: [
                    "authorization": try await gateway.authorization(), "apns-topic": "com.example.app",
                    "host": "api.push.apple.com",
                ],
                body: #"{"aps":{"alert":"Hello"}}"#
            )
            #expect(reply.status == 400)
            #expect(try APNSErrorResponse(data: Data(reply.body.utf8)).reason == .badDeviceToken)
        }
    }
}

@Suite(
    "Connection settings (nghttp)", .startsServers,
    .enabled(if: ChildProcess.isInstalled("nghttp"), ChildProcess.skipped("nghttp")))
struct GatewayConnectionSettingsTests {
    @Test("one concurrent stream until the first valid token, then 1000 (sent before its answer), as observed of APNs")
    func streamLimit() async throws {
        try await GatewayHarness.with { gateway, device in
            let trace = try await gateway.nghttp(
                path: "/3/device/\(device.token.hex)",
                headers: ["authorization": try await gateway.authorization(), "apns-topic": "com.example.app"],
                requests: 3
            )
            var received: [String] = []
            var receiving = false
            for line in trace.components(separatedBy: "\n") {
                if line.contains("] recv ") || line.contains("] send ") { receiving = line.contains("] recv ") }
                if line.contains("recv (stream_id=") && line.contains(":status: 200") {
                    received.append("status 200")
                } else if receiving, let range = line.range(of: "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):") {
                    received.append(
                        "limit " + line[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "]")))
                }
            }
            // The raised limit comes with the first answer, just before its HEADERS, while that stream is open (a
            // client such as AsyncHTTPClient must not see the change on an idle connection).
            #expect(received == ["limit 1", "limit 1000", "status 200", "status 200", "status 200"])
            #expect(trace.components(separatedBy: ":status: 200").count - 1 == 3)
        }
    }

    @Test("300 concurrent pushes on one connection: each answered 200 with its own apns-id, each in the delivery log")
    func concurrentPushes() async throws {
        try await GatewayHarness.with { gateway, device in
            let trace = try await gateway.nghttp(
                path: "/3/device/\(device.token.hex)",
                headers: ["authorization": try await gateway.authorization(), "apns-topic": "com.example.app"],
                requests: 300)
            #expect(trace.components(separatedBy: ":status: 200").count - 1 == 300)
            let ids = trace.components(separatedBy: "\n").compactMap { line -> UUID? in
                guard line.contains("recv (stream_id="), let range = line.range(of: "apns-id: ") else { return nil }
                return UUID(uuidString: String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces))
            }
            #expect(Set(ids).count == 300)
            let kinds = ids.map { gateway.server.store.log.entry(apnsID: $0)?.events.map(\.kind) ?? [] }
            #expect(kinds.allSatisfy { $0.starts(with: [.received, .stored]) })
            #expect(kinds.filter { $0.contains(.replaced) }.count == 299)
            let stored = gateway.server.store.storedNotification(for: device.token)
            #expect(stored.map { ids.contains($0.apnsID) } == true)
        }
    }
}
