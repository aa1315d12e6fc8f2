import Crypto
import Foundation
import GatewayTestSupport
import ProviderStorage
import TestPacing
import Testing

@testable import PushProvider

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(
    "Provider trust: input limits, where credentials go, what the publishable key may do, private files", .startsServers
)
struct ProviderTrustTests {
    @Test(
        "a tag expression past a limit is 400 naming the limit, never a crash or a 500; the provider keeps serving",
        arguments: [
            (String(repeating: "(", count: 20_000) + "a" + String(repeating: ")", count: 20_000), "characters"),
            (String(repeating: "!", count: 50_000) + "a", "characters"),
            (String(repeating: "!", count: 1_000) + "a", "nests"),
            (String(repeating: "(", count: 17) + "a" + String(repeating: ")", count: 17), "nests"),
            ((0..<33).map { "t\($0)" }.joined(separator: " || "), "names 33 tags"),
            ((0..<4_000).map { _ in "a" }.joined(separator: "||"), "characters"),
        ])
    func tagExpressionLimits(expression: String, limit: String) async throws {
        try await ProviderHarness.with { harness in
            let (status, answer) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["tags": expression], "content": ["body": "x"]])
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "target.tags")
            #expect(answer["error"]["message"].string?.contains(limit) == true)
            let (fine, _) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["tags": "(a && !b) || (c && (d || !e))"], "content": ["body": "x"]])
            #expect(fine == 202)
        }
    }

    @Test("requests refused for their credentials are counted in /metrics by status")
    func refusalsCounted() async throws {
        try await ProviderHarness.with { harness in
            let (unauthorized, _) = try await harness.call("GET", "/v1/devices", key: "sk_guess")
            #expect(unauthorized == 401)
            let (forbidden, _) = try await harness.call(
                "POST", "/v1/channels", key: harness.publishableKey, body: ["storagePolicy": 0])
            #expect(forbidden == 401 || forbidden == 403)
            var request = URLRequest(url: URL(string: harness.baseURL + "/metrics")!)
            request.setValue("Bearer \(harness.adminToken)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await URLSession.shared.data(for: request)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#"herald_provider_refusals_total{status="401"}"#), "\(text)")
            let lines = text.split(separator: "\n").filter { $0.hasPrefix("herald_provider_refusals_total") }
            let total = lines.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
            #expect(total == 2, "\(lines)")
        }
    }

    @Test("an API key cannot point its app at another host; credentials move only with the endpoint they are for")
    func endpointRedirect() async throws {
        try await ProviderHarness.with { harness in
            let path = "/v1/apps/\(harness.appID)"
            let (stolen, answer) = try await harness.call("PATCH", path, body: ["endpoint": "https://attacker.example"])
            #expect(stolen == 403)
            #expect(answer["error"]["message"].string?.contains("--allow-endpoint") == true)
            let (apple, _) = try await harness.call(
                "PATCH", path,
                body: [
                    "endpoint": "production",
                    "authentication": ProviderHarness.appBody(harness.gateway)["authentication"]!,
                ])
            #expect(apple == 200)
            // The admin may choose any endpoint, but never without the credentials for it.
            let (bare, bareAnswer) = try await harness.call(
                "PATCH", path, key: harness.adminToken, body: ["endpoint": "https://127.0.0.1:\(harness.gateway.port)"])
            #expect(bare == 400)
            #expect(bareAnswer["error"]["field"].string == "endpoint")
            let (moved, _) = try await harness.call(
                "PATCH", path, key: harness.adminToken, body: ProviderHarness.appBody(harness.gateway))
            #expect(moved == 200)
        }
    }

    @Test("a new environment moves an app on Apple's host to the other Apple host with its credentials; others stay")
    func environmentChange() async throws {
        try await ProviderHarness.with { harness in
            let path = "/v1/apps/\(harness.appID)"
            let (local, localAnswer) = try await harness.call("PATCH", path, body: ["environment": "production"])
            #expect(local == 200)
            #expect(localAnswer["endpoint"].string == "https://127.0.0.1:\(harness.gateway.port)", "the gateway stays")
            let (toSandbox, _) = try await harness.call(
                "PATCH", path,
                body: [
                    "environment": "development", "endpoint": "https://api.sandbox.push.apple.com",
                    "authentication": ProviderHarness.appBody(harness.gateway)["authentication"]!,
                ])
            #expect(toSandbox == 200)
            let (moved, movedAnswer) = try await harness.call("PATCH", path, body: ["environment": "production"])
            #expect(moved == 200)
            #expect(movedAnswer["endpoint"].string == "https://api.push.apple.com")
            let stored = try #require(try await harness.provider.store.app(id: harness.appID))
            let bound = try BoundCredentials.open(stored.sealedCredentials, with: harness.provider.secrets)
            #expect(bound.endpoint == "https://api.push.apple.com", "the credentials go with it, to Apple only")
        }
    }

    @Test("an allow-listed endpoint may be chosen with an API key")
    func allowListedEndpoint() async throws {
        try await ProviderHarness.with(configure: { $0.allowedEndpoints = ["https://push.internal.example:8443"] }) {
            harness in
            var body = ProviderHarness.appBody(harness.gateway)
            body["endpoint"] = "https://push.internal.example:8443/"
            let (status, answer) = try await harness.call("PATCH", "/v1/apps/\(harness.appID)", body: body)
            #expect(status == 200, "\(answer)")
        }
    }

    @Test(
        "a webhook may not point inside the provider's network unless the admin allowed the host",
        arguments: [
            "http://169.254.169.254/latest/meta-data", "http://localhost:9/hook", "http://10.0.0.1/hook",
            "http://[::1]:9/hook", "https://192.168.1.1/hook",
        ])
    func webhookAddresses(url: String) async throws {
        try await ProviderHarness.with { harness in
            let (status, answer) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookURL": url])
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "webhookURL")
            #expect(answer["error"]["message"].string?.contains("--allow-webhook-host") == true)
        }
    }

    @Test("the publishable key binds a user only with that user's token, and cannot take over a user's device")
    func publishableKeyBinding() async throws {
        try await ProviderHarness.with { harness in
            let token = String(repeating: "ab", count: 32)
            let key = Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation.base64EncodedString()
            let device = ["token": token, "userID": "alice", "publicKey": key]
            let pk = harness.publishableKey
            let (unproven, answer) = try await harness.call("POST", "/v1/devices", key: pk, body: device)
            #expect(unproven == 403)
            #expect(answer["error"]["message"].string?.contains("/v1/users/") == true)

            let (issued, made) = try await harness.call("POST", "/v1/users/alice/token")
            #expect(issued == 201)
            let alice = try #require(made["userToken"].string)
            let (_, forBob) = try await harness.call("POST", "/v1/users/bob/token?ttl=600")
            let bob = try #require(forBob["userToken"].string)
            let (wrongUser, _) = try await harness.call(
                "POST", "/v1/devices", key: pk, body: device.merging(["userToken": bob]) { $1 })
            #expect(wrongUser == 403)
            let (tampered, _) = try await harness.call(
                "POST", "/v1/devices", key: pk, body: device.merging(["userToken": alice + "x"]) { $1 })
            #expect(tampered == 403)
            let (bound, _) = try await harness.call(
                "POST", "/v1/devices", key: pk, body: device.merging(["userToken": alice]) { $1 })
            #expect(bound == 201)

            // A stranger with the publishable key: no new key, no delete, without alice's token.
            let other = Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation.base64EncodedString()
            let (rekeyed, _) = try await harness.call(
                "POST", "/v1/devices", key: pk, body: ["token": token, "publicKey": other])
            #expect(rekeyed == 403)
            let (deleted, _) = try await harness.call("DELETE", "/v1/devices/\(token)", key: pk)
            #expect(deleted == 403)
            let (_, kept) = try await harness.call("GET", "/v1/devices/\(token)")
            #expect(kept["userID"].string == "alice" && kept["publicKey"].string == key)
            // The same registration again (a device restarting) needs no proof.
            let (again, _) = try await harness.call(
                "POST", "/v1/devices", key: pk, body: ["token": token, "publicKey": key])
            #expect(again == 200)
            let (ownDelete, _) = try await ProviderHarness.request(
                "DELETE", harness.baseURL + "/v1/devices/\(token)", key: pk, headers: ["X-Herald-User-Token": alice])
            #expect(ownDelete == 204)
        }
    }

    @Test("a device has at most 64 tags of at most 128 characters")
    func tagsPerDevice() async throws {
        try await ProviderHarness.with { harness in
            let token = String(repeating: "cd", count: 32)
            let (many, answer) = try await harness.call(
                "POST", "/v1/devices", body: ["token": token, "tags": (0..<65).map { "t\($0)" }])
            #expect(many == 400)
            #expect(answer["error"]["message"].string?.contains("64") == true)
            let (long, _) = try await harness.call(
                "POST", "/v1/devices", body: ["token": token, "tags": [String(repeating: "x", count: 129)]])
            #expect(long == 400)
        }
    }

    @Test("the provider's folder is 0700 and its secrets and database 0600")
    func fileModes() async throws {
        guard ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] == nil else { return }
        try await ProviderHarness.with { harness in
            let folder = harness.provider.configuration.providerDirectory
            let folderMode = try mode(of: folder)
            #expect(folderMode == 0o700)
            for file in ["admin-token", "master.key", "provider.sqlite"] {
                let fileMode = try mode(of: folder.appendingPathComponent(file))
                #expect(fileMode == 0o600, "\(file)")
            }
        }
    }

    private func mode(of url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
    }
}
