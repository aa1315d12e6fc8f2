import APNSCore
import APNSGateway
import Crypto
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@Suite("Admin API over HTTP/2 and HTTP/1.1, and bad input on the provider API", .startsServers)
struct GatewayAdminAndBadInputTests {
    @Test("the admin API answers over HTTP/1.1; the provider API there says to use HTTP/2")
    func http1() async throws {
        try await GatewayHarness.with { gateway, _ in
            let made = try await gateway.admin(
                "POST", "/admin/devices", body: #"{"topic":"com.example.app","environment":"production"}"#, http1: true)
            #expect(made.status == 201)
            let token = try APNSDeviceToken(hex: made.json["token"]?.string ?? "")
            #expect(gateway.server.registry.device(for: token)?.environment == .production)
            let provider = try await gateway.curl(path: "/3/device/\(token.hex)", body: "{}", http1: true)
            #expect(provider.status == 505)
            #expect(provider.body.contains("HTTP/2"))
        }
    }

    @Test("a client that names no protocol in ALPN gets HTTP/2 when it speaks it (as aioapns does), else HTTP/1.1")
    func withoutALPN() async throws {
        try await GatewayHarness.with { gateway, device in
            let push = try await gateway.curl(
                path: "/3/device/\(device.token.hex)",
                headers: ["authorization": try await gateway.authorization(), "apns-topic": "com.example.app"],
                body: #"{"aps":{"alert":"Hello"}}"#, withoutALPN: true)
            #expect(push.status == 200)
            #expect(push.headers["apns-id"] != nil)
            let admin = try await gateway.curl(
                method: "POST", path: "/admin/devices", body: #"{"topic":"com.example.app"}"#, http1: true,
                withoutALPN: true)
            #expect(admin.status == 201)
        }
    }

    @Test("a chosen token is kept; the same token for another app is 409")
    func chosenToken() async throws {
        try await GatewayHarness.with { gateway, _ in
            let hex = String(repeating: "ab", count: 32)
            let made = try await gateway.admin(
                "POST", "/admin/devices", body: #"{"topic":"com.example.app","token":"\#(hex)"}"#)
            #expect(made.status == 201 && made.json["token"]?.string == hex)
            let clash = try await gateway.admin(
                "POST", "/admin/devices", body: #"{"topic":"com.other.app","token":"\#(hex)"}"#)
            #expect(clash.status == 409)
            #expect(clash.json["error"]?.string?.contains("com.example.app") == true)
        }
    }

    @Test("a key added at run time signs pushes; a key for one environment is BadEnvironmentKeyIdInToken in the other")
    func keysAtRunTime() async throws {
        try await GatewayHarness.with { gateway, device in
            let key = P256.Signing.PrivateKey()
            let pem = key.publicKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
            let added = try await gateway.admin(
                "POST", "/admin/keys",
                body: #"{"key-id":"NEWKEY1234","team-id":"DEF123GHIJ","pem":"\#(pem)","environment":"production"}"#)
            #expect(added.status == 201)
            let signer = try APNSProviderTokenSigner(
                privateKeyPEM: key.pemRepresentation, keyID: "NEWKEY1234", teamID: "DEF123GHIJ")
            let jwt = try await signer.token(issuedAt: Date()).authorizationHeaderValue
            let reply = try await gateway.curl(
                path: "/3/device/\(device.token.hex)",
                headers: ["authorization": jwt, "apns-topic": "com.example.app"], body: #"{"aps":{}}"#)
            #expect(reply.status == 403)
            #expect(reply.body == #"{"reason":"BadEnvironmentKeyIdInToken"}"#)
            // Asked with herald-explain: 1 (Herald's client asks any server but Apple's), the same status and reason
            // come with the gateway's explanation; without it, the body above is Apple's, byte for byte.
            let explained = try await gateway.curl(
                path: "/3/device/\(device.token.hex)",
                headers: ["authorization": jwt, "apns-topic": "com.example.app", "herald-explain": "1"],
                body: #"{"aps":{}}"#)
            #expect(explained.status == 403)
            let object = try JSONSerialization.jsonObject(with: Data(explained.body.utf8)) as? [String: String]
            #expect(object?["reason"] == "BadEnvironmentKeyIdInToken")
            #expect(object?["explanation"]?.contains("production") == true, "\(explained.body)")
        }
    }

    @Test("an expired token is 410 ExpiredToken with the time it expired")
    func expiredToken() async throws {
        try await GatewayHarness.with { gateway, device in
            let before = Date()
            #expect(try await gateway.admin("POST", "/admin/devices/\(device.token.hex)/expire").status == 204)
            let reply = try await gateway.push(device.token)
            #expect(reply.status == 410)
            let body = try APNSErrorResponse(data: Data(reply.body.utf8))
            #expect(body.reason == .expiredToken)
            #expect((body.invalidSince ?? .distantPast) >= before.addingTimeInterval(-1))
        }
    }

    @Test("a body of megabytes is 413 PayloadTooLarge, read to its end, and the gateway keeps serving")
    func hugeBody() async throws {
        try await GatewayHarness.with { gateway, device in
            let file = gateway.directory.appendingPathComponent("huge.json")
            let text = "{\"aps\":{\"alert\":\"" + String(repeating: "x", count: 3 << 20) + "\"}}"
            try Data(text.utf8).write(to: file)
            let reply = try await gateway.push(device.token, body: "@\(file.path)")
            #expect(reply.status == 413)
            #expect(reply.body == #"{"reason":"PayloadTooLarge"}"#)
            #expect(try await gateway.push(device.token).status == 200)
        }
    }

    @Test("a payload that is not UTF-8 JSON is 400 PayloadEmpty")
    func notUTF8() async throws {
        try await GatewayHarness.with { gateway, device in
            let file = gateway.directory.appendingPathComponent("latin1.json")
            try Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xE9, 0x22, 0x7D]).write(to: file)
            let reply = try await gateway.push(device.token, body: "@\(file.path)")
            #expect(reply.status == 400)
            #expect(reply.body == #"{"reason":"PayloadEmpty"}"#)
        }
    }

    @Test("headers over the advertised 8000-byte list size close the connection at once, and the gateway keeps serving")
    func oversizedHeaders() async throws {
        try await GatewayHarness.with { gateway, device in
            let huge = try await gateway.push(
                device.token, headers: ["x-padding": String(repeating: "p", count: 20_000)])
            #expect(huge.status != 200)
            #expect(huge.exitStatus != 28, "curl timed out: the gateway sent GOAWAY but left the connection open")
            #expect(try await gateway.push(device.token).status == 200)
        }
    }

    @Test("a header list over the advertised 8000 bytes but under NIOHTTP2's default is refused, only its stream")
    func headerListOverAdvertised() async throws {
        try await GatewayHarness.with { gateway, device in
            for size in [8_200, 15_500] {
                let over = try await gateway.push(
                    device.token, headers: ["x-padding": String(repeating: "p", count: size)])
                #expect(over.status != 200, "\(size) bytes")
            }
            #expect(gateway.server.store.storedNotification(for: device.token) == nil)
            #expect(try await gateway.push(device.token).status == 200)
        }
    }

    @Test(
        "a header block HTTP/2 forbids is reset with PROTOCOL_ERROR, nothing is stored, and the gateway keeps serving",
        .enabled(if: ChildProcess.isInstalled("nghttp"), ChildProcess.skipped("nghttp")),
        arguments: ["te: gzip", "connection: close", "keep-alive: 5", "upgrade: h2c", "bad header: 1"])
    func malformedHeaderBlock(field: String) async throws {
        try await GatewayHarness.with { gateway, device in
            let parts = field.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let trace = try await gateway.nghttp(
                path: "/3/device/\(device.token.hex)",
                headers: [
                    "authorization": try await gateway.authorization(), "apns-topic": "com.example.app",
                    parts[0]: parts[1],
                ],
                requests: 1)
            #expect(trace.contains("recv RST_STREAM"))
            #expect(trace.contains("error_code=PROTOCOL_ERROR"))
            #expect(!trace.contains(":status: 200"))
            let listing = try await gateway.admin("GET", "/admin/devices/\(device.token.hex)/notifications")
            #expect(listing.json["stored"]?.array?.isEmpty == true)
            #expect(try await gateway.push(device.token).status == 200)
        }
    }
}
