import APNSGateway
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Doors found open from outside: each test sends what an attacker holding the app's publishable key, a user token
/// or one API key could send, and checks nothing changed.
@Suite("Doors: what a user token, the publishable key and one API key cannot do", .startsServers)
struct ProviderDoorsTests {
    @Test("a user's own token cannot take another user's device: not rebind it, not replace its key, not delete it")
    func userTokenCannotTakeAnotherUsersDevice() async throws {
        try await ProviderHarness.with { harness in
            let key = harness.publishableKey
            let token = try harness.gatewayToken()
            let victim = try await harness.userToken("victim")
            let attacker = try await harness.userToken("attacker")
            let publicKey = Data(repeating: 9, count: 32).base64EncodedString()
            let (made, _) = try await harness.call(
                "POST", "/v1/devices", key: key,
                body: ["token": token, "userID": "victim", "userToken": victim, "publicKey": publicKey])
            #expect(made == 201)

            let (rebound, answer) = try await harness.call(
                "POST", "/v1/devices", key: key, body: ["token": token, "userID": "attacker", "userToken": attacker])
            #expect(rebound == 403, "\(answer)")
            #expect(answer["error"]["message"].string?.contains("victim") == true, "\(answer)")
            let otherKey = Data(repeating: 7, count: 32).base64EncodedString()
            let (rekeyed, _) = try await harness.call(
                "POST", "/v1/devices", key: key,
                body: ["token": token, "userID": "attacker", "userToken": attacker, "publicKey": otherKey])
            #expect(rekeyed == 403)
            var deletion = URLRequest(url: URL(string: harness.baseURL + "/v1/devices/\(token)")!)
            deletion.httpMethod = "DELETE"
            deletion.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
            deletion.setValue(attacker, forHTTPHeaderField: "X-Herald-User-Token")
            let (_, deleted) = try await URLSession.shared.data(for: deletion)
            #expect((deleted as? HTTPURLResponse)?.statusCode == 403)

            let stored = try await harness.call("GET", "/v1/devices/\(token)").1
            #expect(stored["userID"].string == "victim")
            #expect(stored["publicKey"].string == publicKey)

            // Signing out (deleting with the owner's token) and signing in again is how a device changes hands.
            deletion.setValue(victim, forHTTPHeaderField: "X-Herald-User-Token")
            let (_, signedOut) = try await URLSession.shared.data(for: deletion)
            #expect((signedOut as? HTTPURLResponse)?.statusCode == 204)
            let (signedIn, _) = try await harness.call(
                "POST", "/v1/devices", key: key, body: ["token": token, "userID": "attacker", "userToken": attacker])
            #expect(signedIn == 201)
        }
    }

    @Test("a user-bound device without an end-to-end key gets one only from its owner")
    func keyOnUserBoundDevice() async throws {
        try await ProviderHarness.with { harness in
            let key = harness.publishableKey
            let token = try harness.gatewayToken()
            let owner = try await harness.userToken("owner")
            let (made, _) = try await harness.call(
                "POST", "/v1/devices", key: key, body: ["token": token, "userID": "owner", "userToken": owner])
            #expect(made == 201)
            let attackerKey = Data(repeating: 7, count: 32).base64EncodedString()
            let (keyed, answer) = try await harness.call(
                "POST", "/v1/devices", key: key, body: ["token": token, "publicKey": attackerKey])
            #expect(keyed == 403, "\(answer)")
            #expect(try await harness.call("GET", "/v1/devices/\(token)").1["publicKey"].isNull)
            let (byOwner, _) = try await harness.call(
                "POST", "/v1/devices", key: key, body: ["token": token, "publicKey": attackerKey, "userToken": owner])
            #expect(byOwner == 200)
        }
    }

    @Test("a device with an end-to-end key and no user is bound to a user only with the API key")
    func unboundKeyedDeviceNeedsTheAPIKey() async throws {
        try await ProviderHarness.with { harness in
            let key = harness.publishableKey
            let token = try harness.gatewayToken()
            let attacker = try await harness.userToken("attacker")
            let publicKey = Data(repeating: 9, count: 32).base64EncodedString()
            let (made, _) = try await harness.call(
                "POST", "/v1/devices", key: key, body: ["token": token, "publicKey": publicKey])
            #expect(made == 201)
            let (bound, answer) = try await harness.call(
                "POST", "/v1/devices", key: key, body: ["token": token, "userID": "attacker", "userToken": attacker])
            #expect(bound == 403, "\(answer)")
            #expect(answer["error"]["message"].string?.contains("API key") == true, "\(answer)")
            #expect(try await harness.call("GET", "/v1/devices/\(token)").1["userID"].isNull)
            let (byServer, _) = try await harness.call(
                "POST", "/v1/devices", body: ["token": token, "userID": "alice"])
            #expect(byServer == 200)
        }
    }

    @Test("an API key cannot swap the CA its APNs connections trust without the credentials; a bad CA is refused")
    func trustedCAChangesWithCredentialsOnly() async throws {
        try await ProviderHarness.with { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-ca-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let otherCA = try LocalCertificateAuthority.loadOrCreate(in: folder).caCertificatePEM
            let path = "/v1/apps/\(harness.appID)"
            let (alone, answer) = try await harness.call("PATCH", path, body: ["caPEM": otherCA])
            #expect(alone == 400, "\(answer)")
            #expect(answer["error"]["field"].string == "caPEM")
            #expect(answer["error"]["message"].string?.contains("authentication") == true)
            let authentication = try #require(ProviderHarness.appBody(harness.gateway)["authentication"])
            let broken = "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n"
            let (malformed, refusal) = try await harness.call(
                "PATCH", path, body: ["caPEM": broken, "authentication": authentication])
            #expect(malformed == 400, "\(refusal)")
            #expect(refusal["error"]["field"].string == "caPEM")
            // Nothing was changed by either: a push still goes out.
            let (_, apnsID, _) = try await harness.sentToOneDevice()
            #expect(!apnsID.isEmpty)
            let same = harness.gateway.server.certificateAuthority.caCertificatePEM
            #expect(try await harness.call("PATCH", path, body: ["caPEM": same]).0 == 200)
            let (withCredentials, _) = try await harness.call(
                "PATCH", path, body: ["caPEM": otherCA, "authentication": authentication])
            #expect(withCredentials == 200)
        }
    }

    @Test("the publishable key cannot list apps (their webhook URLs, endpoints and key IDs)")
    func publishableKeyCannotListApps() async throws {
        try await ProviderHarness.with { harness in
            let (status, answer) = try await harness.call("GET", "/v1/apps", key: harness.publishableKey)
            #expect(status == 403, "\(answer)")
            #expect(answer.array.isEmpty && answer["error"]["message"].string != nil)
            #expect(try await harness.call("GET", "/v1/apps").0 == 200)
        }
    }

    @Test(
        "a webhook URL to this machine in any form the resolver reads is refused when saved",
        arguments: [
            "http://2130706433/hook", "http://0x7f000001/hook", "http://127.1/hook", "http://0177.0.0.1/hook",
            "http://localhost./hook", "http://0/hook", "http://10.1/hook",
        ])
    func webhookAddressForms(url: String) async throws {
        try await ProviderHarness.with { harness in
            let (status, answer) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookURL": url])
            #expect(status == 400, "\(url): \(answer)")
            #expect(answer["error"]["field"].string == "webhookURL")
            #expect(try await harness.call("GET", "/v1/apps/\(harness.appID)").1["webhookURL"].isNull)
        }
    }

    @Test("a key written twice in a body is refused with 400 naming it, and nothing is sent")
    func duplicateKeys() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            let bodies = [
                #"{"target":{"token":"\#(token)"},"target":{"all":true},"content":{"body":"x"}}"#: "target",
                #"{"target":{"token":"\#(token)","token":"\#(token)"},"content":{"body":"x"}}"#: "target.token",
                #"{"target":{"token":"\#(token)"},"payload":{"aps":{"alert":"a","alert":"b"}}}"#: "payload.aps.alert",
            ]
            for (body, field) in bodies {
                let (status, answer) = try await harness.call("POST", "/v1/notifications", body: Data(body.utf8))
                #expect(status == 400, "\(body): \(answer)")
                #expect(answer["error"]["field"].string == field, "\(body): \(answer)")
                #expect(answer["error"]["message"].string?.contains("twice") == true)
            }
            let (devices, _) = try await harness.call(
                "POST", "/v1/devices", body: Data(#"{"token":"\#(token)","tags":["a"],"tags":["b"]}"#.utf8))
            #expect(devices == 400)
            let (listed, answer) = try await harness.call("GET", "/v1/notifications")
            #expect(listed == 200)
            #expect(answer.array.isEmpty, "\(answer)")
        }
    }
}

extension ProviderHarness {
    /// A user token for `user`, as the app's server gets one for its signed-in app.
    func userToken(_ user: String) async throws -> String {
        try #require(try await call("POST", "/v1/users/\(user)/token").1["userToken"].string)
    }
}
