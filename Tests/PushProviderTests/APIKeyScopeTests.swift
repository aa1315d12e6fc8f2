import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@testable import PushProvider

@Suite(
    "Restricted API keys: a key made with scopes does only their jobs; 403 names the scope a route needs",
    .startsServers)
struct APIKeyScopeTests {
    /// A new key of the harness's app with `scopes`.
    static func key(_ harness: ProviderHarness, _ scopes: [String]) async throws -> String {
        let (status, made) = try await harness.call(
            "POST", "/v1/apps/\(harness.appID)/keys", body: ["scopes": scopes])
        #expect(status == 201 && made["restricted"].bool == true, "\(made)")
        #expect(
            made["scopes"].array.compactMap(\.string)
                == scopes.sorted { APIKeyScope(rawValue: $0)! < APIKeyScope(rawValue: $1)! })
        return try #require(made["apiKey"].string)
    }

    @Test("a send-only key sends and cancels; reading, devices, app changes and keys are 403 naming the scope")
    func sendOnly() async throws {
        try await ProviderHarness.with { harness in
            let send = try await Self.key(harness, ["send"])
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications", key: send,
                body: ["target": ["all": true], "content": ["body": "from the CMS"]])
            #expect(status == 202, "\(created)")
            let id = try #require(created["id"].string)
            for (method, path, scope) in [
                ("GET", "/v1/notifications/\(id)", "read"), ("GET", "/v1/notifications", "read"),
                ("GET", "/v1/devices", "devices"), ("PATCH", "/v1/apps/\(harness.appID)", "apps"),
                ("POST", "/v1/apps/\(harness.appID)/webhook-secret", "webhooks"), ("GET", "/v1/apps", "read"),
            ] {
                let (refused, answer) = try await harness.call(
                    method, path, key: send, body: method == "PATCH" ? [:] : nil)
                #expect(refused == 403, "\(method) \(path): \(answer)")
                #expect(answer["error"]["message"].string?.contains("\"\(scope)\"") == true, "\(answer)")
            }
            let (keys, answer) = try await harness.call("POST", "/v1/apps/\(harness.appID)/keys", key: send)
            #expect(keys == 403 && answer["error"]["message"].string?.contains("every scope") == true, "\(answer)")
            // Cancelling is a send's job: allowed (it finished already, with no device: 409, not 403).
            let (cancel, cancelled) = try await harness.call("DELETE", "/v1/notifications/\(id)", key: send)
            #expect([200, 409].contains(cancel), "\(cancelled)")
            // The app's first key keeps every scope.
            #expect(try await harness.call("GET", "/v1/notifications/\(id)").0 == 200)
        }
    }

    @Test("a read-only key reads but cannot cancel; a devices key registers; the list shows each key's scopes")
    func readAndDevices() async throws {
        try await ProviderHarness.with { harness in
            let read = try await Self.key(harness, ["read"])
            let devices = try await Self.key(harness, ["devices", "read"])
            let (registered, device) = try await harness.call(
                "POST", "/v1/devices", key: devices, body: ["token": try harness.gatewayToken()])
            #expect(registered == 201, "\(device)")
            #expect(try await harness.call("GET", "/v1/devices", key: devices).0 == 200)
            #expect(
                try await harness.call("POST", "/v1/devices", key: read, body: ["token": try harness.gatewayToken()]).0
                    == 403)
            let id = try #require(
                try await harness.call(
                    "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "x"]]
                ).1["id"].string)
            #expect(try await harness.call("GET", "/v1/notifications/\(id)", key: read).0 == 200)
            let (cancel, refused) = try await harness.call("DELETE", "/v1/notifications/\(id)", key: read)
            #expect(cancel == 403 && refused["error"]["message"].string?.contains("\"send\"") == true, "\(refused)")
            let (listed, list) = try await harness.call(
                "GET", "/v1/apps/\(harness.appID)/keys", key: harness.adminToken)
            #expect(listed == 200, "\(list)")
            let rows = list.array
            #expect(rows.count == 3 && rows.allSatisfy { $0["apiKey"].isNull })
            #expect(
                rows.first?["restricted"].bool == false
                    && rows.first?["scopes"].array.count == APIKeyScope.allCases.count)
            #expect(
                rows.map { $0["scopes"].array.compactMap(\.string) }.dropFirst() == [["read"], ["read", "devices"]])
        }
    }

    @Test("bad scopes are 400 naming scopes: none, unknown, twice, not a list, an unknown field")
    func badScopes() async throws {
        try await ProviderHarness.with { harness in
            for body: Any in [["scopes": []], ["scopes": ["sendd"]], ["scopes": ["send", "send"]], ["scopes": "send"]] {
                let (status, answer) = try await harness.call("POST", "/v1/apps/\(harness.appID)/keys", body: body)
                #expect(status == 400 && answer["error"]["field"].string == "scopes", "\(body): \(answer)")
            }
            let (status, answer) = try await harness.call(
                "POST", "/v1/apps/\(harness.appID)/keys", body: ["scope": ["send"]])
            #expect(status == 400 && answer["error"]["field"].string == "scope", "\(answer)")
            // None was made.
            #expect(try await harness.call("GET", "/v1/apps/\(harness.appID)/keys").1.array.count == 1)
        }
    }
}
