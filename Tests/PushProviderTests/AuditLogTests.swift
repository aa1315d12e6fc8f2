import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@testable import PushProvider

@Suite(
    "The audit log: every change made with a secret, with its key's ID and address, never the secret", .startsServers)
struct AuditLogTests {
    @Test("changes by the admin token and an API key are recorded; reads, refusals and publishable-key calls are not")
    func recorded() async throws {
        try await ProviderHarness.with { harness in
            let firstKey = try #require(
                try await harness.call("GET", "/v1/apps/\(harness.appID)/keys").1.array.first?["id"].string)
            let created = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "audited"]])
            #expect(created.0 == 202)
            _ = try await harness.call("PATCH", "/v1/apps/\(harness.appID)", body: ["rateLimit": 5])
            let restricted = try #require(
                try await harness.call("POST", "/v1/apps/\(harness.appID)/keys", body: ["scopes": ["read"]]).1[
                    "apiKey"
                ].string)
            // Not changes, or not with a secret, or refused: none recorded.
            _ = try await harness.call("GET", "/v1/notifications")
            #expect(
                try await harness.call(
                    "POST", "/v1/devices", key: harness.publishableKey, body: ["token": try harness.gatewayToken()]
                ).0 == 201)
            #expect(try await harness.call("PATCH", "/v1/apps/\(harness.appID)", key: restricted, body: [:]).0 == 403)

            let (status, log) = try await harness.call("GET", "/v1/audit")
            #expect(status == 200, "\(log)")
            let entries = log.array
            #expect(entries.map { $0["kind"].string ?? "?" } == ["keys", "apps", "notifications"], "\(log)")
            #expect(
                entries.map { $0["route"].string ?? "?" } == [
                    "POST /v1/apps/{appID}/keys", "PATCH /v1/apps/{appID}", "POST /v1/notifications",
                ])
            for entry in entries {
                #expect(entry["actor"].string == "apiKey" && entry["keyID"].string == firstKey, "\(entry)")
                #expect(entry["appID"].string == harness.appID && entry["address"].string == "127.0.0.1")
                #expect(entry["console"].bool == false && (entry["status"].int ?? 0) < 300)
            }
            // What each changed, by the body's fields (never their values), as the body ordered them.
            #expect(
                entries.map { Set($0["fields"].array.compactMap(\.string)) } == [
                    ["scopes"], ["rateLimit"], ["target", "content"],
                ])
            let text = String(describing: log)
            #expect(!text.contains(harness.apiKey) && !text.contains(restricted), "never a secret")
            // The admin sees every app's, its own creation of the app among them.
            let all = try await harness.call("GET", "/v1/audit", key: harness.adminToken).1.array
            #expect(
                all.count == 4 && all.last?["actor"].string == "admin" && all.last?["route"].string == "POST /v1/apps")
            // Filters.
            #expect(try await harness.call("GET", "/v1/audit?kind=keys").1.array.count == 1)
            #expect(try await harness.call("GET", "/v1/audit?key=\(firstKey)&limit=2").1.array.count == 2)
            #expect(try await harness.call("GET", "/v1/audit?key=key_none").1.array.isEmpty)
            let newest = try #require(entries.first?["id"].int)
            #expect(try await harness.call("GET", "/v1/audit?before=\(newest)").1.array.count == 2)
            // A key restricted to reading may not read the log (it is the app's administration).
            #expect(try await harness.call("GET", "/v1/audit", key: restricted).0 == 403)
        }
    }

    @Test("a bad query is 400 naming its field: ten years, from after to, not a time, a limit of 0 or 10^9")
    func badQueries() async throws {
        try await ProviderHarness.with { harness in
            for (query, field) in [
                ("from=2016-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"),
                ("from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"), ("to=yesterday", "to"),
                ("limit=0", "limit"), ("limit=1000000000", "limit"), ("before=-1", "before"),
            ] {
                let (status, answer) = try await harness.call("GET", "/v1/audit?\(query)")
                #expect(status == 400 && answer["error"]["field"].string == field, "\(query): \(answer)")
            }
        }
    }
}
