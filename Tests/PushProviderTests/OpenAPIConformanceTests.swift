import Foundation
import TestPacing
import Testing

@Suite("Answers conform to docs/openapi.json", .startsServers)
struct OpenAPIConformanceTests {
    @Test("every route's answers, successes and errors, match the document")
    func conformance() async throws {
        let document = try OpenAPIDocument.load()
        try await ProviderHarness.with { harness in
            var checked = 0
            func expectConforms(
                _ method: String, _ template: String, _ path: String, key: String? = nil, body: Any? = nil
            )
                async throws -> JSON
            {
                let (status, answer) = try await harness.call(method, path, key: key, body: body)
                let problems = document.problems(method: method, path: template, status: status, body: answer.value)
                #expect(problems.isEmpty, "\(method) \(path) \(status): \(problems)")
                checked += 1
                return answer
            }
            let admin = harness.adminToken
            let token = try harness.gatewayToken()
            _ = try await expectConforms("GET", "/healthz", "/healthz")
            _ = try await expectConforms("GET", "/v1/apps", "/v1/apps", key: admin)
            _ = try await expectConforms(
                "POST", "/v1/apps", "/v1/apps", key: admin,
                body: ProviderHarness.appBody(harness.gateway, bundleID: "com.example.second"))
            _ = try await expectConforms("POST", "/v1/apps", "/v1/apps", key: admin, body: ["bundleID": "x"])
            _ = try await expectConforms("GET", "/v1/apps/{appID}", "/v1/apps/\(harness.appID)")
            _ = try await expectConforms(
                "PATCH", "/v1/apps/{appID}", "/v1/apps/\(harness.appID)", body: ["rateLimit": 0])
            _ = try await expectConforms("POST", "/v1/apps/{appID}/keys", "/v1/apps/\(harness.appID)/keys")
            _ = try await expectConforms(
                "POST", "/v1/devices", "/v1/devices", key: harness.publishableKey,
                body: ["token": token, "tags": ["a"], "timeZone": "Asia/Shanghai"])
            _ = try await expectConforms(
                "POST", "/v1/devices", "/v1/devices", key: harness.publishableKey, body: ["token": "nothex"])
            _ = try await expectConforms("GET", "/v1/devices", "/v1/devices")
            _ = try await expectConforms("POST", "/v1/users/{userID}/token", "/v1/users/alice/token")
            _ = try await expectConforms("POST", "/v1/users/{userID}/token", "/v1/users/alice/token?ttl=5")
            _ = try await expectConforms("GET", "/v1/devices/{token}", "/v1/devices/\(token)")
            _ = try await expectConforms(
                "GET", "/v1/devices/{token}", "/v1/devices/\(String(repeating: "0", count: 64))")
            let created = try await expectConforms(
                "POST", "/v1/notifications", "/v1/notifications",
                body: ["target": ["all": true], "content": ["title": "t", "body": "b"], "collapseID": "c1"])
            _ = try await expectConforms(
                "POST", "/v1/notifications", "/v1/notifications",
                body: ["target": ["all": true], "content": ["badge": "1"]])
            let id = try #require(created["id"].string)
            _ = try await harness.finished(id)
            _ = try await expectConforms("GET", "/v1/notifications/{id}", "/v1/notifications/\(id)")
            _ = try await expectConforms("GET", "/v1/notifications", "/v1/notifications")
            _ = try await expectConforms("GET", "/v1/notifications", "/v1/notifications?before=yesterday")
            let deliveries = try await expectConforms(
                "GET", "/v1/notifications/{id}/deliveries", "/v1/notifications/\(id)/deliveries?limit=1")
            let apnsID = try #require(deliveries[0]["apnsID"].string)
            _ = try await expectConforms("GET", "/v1/deliveries/{apnsID}", "/v1/deliveries/\(apnsID)")
            _ = try await expectConforms("GET", "/v1/deliveries/{apnsID}", "/v1/deliveries/not-a-uuid")
            _ = try await expectConforms("GET", "/v1/devices", "/v1/devices?active=false")
            _ = try await expectConforms("GET", "/v1/devices", "/v1/devices?active=maybe")
            _ = try await expectConforms(
                "POST", "/v1/feedback", "/v1/feedback", key: harness.publishableKey,
                body: ["event": "displayed", "apnsID": String(id.prefix(23)) + "-000000000001"])
            _ = try await expectConforms(
                "POST", "/v1/feedback", "/v1/feedback", key: harness.publishableKey,
                body: ["event": "displayed", "apnsID": String(id.prefix(23)) + "-0000000000FF"])
            _ = try await expectConforms(
                "POST", "/v1/feedback", "/v1/feedback", key: harness.publishableKey,
                body: ["event": "action", "action": "like", "text": "yes", "apnsID": apnsID])
            _ = try await expectConforms(
                "GET", "/v1/notifications/{id}/responses", "/v1/notifications/\(id)/responses")
            _ = try await expectConforms(
                "POST", "/v1/notifications", "/v1/notifications", body: ["target": ["user": "nobody"], "content": [:]])
            _ = try await expectConforms(
                "PUT", "/v1/apps/{appID}/categories", "/v1/apps/\(harness.appID)/categories",
                body: ["UNNotificationCategory": [:], "UNNotificationAction": [:]])
            _ = try await expectConforms("GET", "/v1/categories", "/v1/categories", key: harness.publishableKey)
            _ = try await expectConforms("GET", "/v1/devices", "/v1/devices", key: "sk_wrong")
            for (template, body) in [
                ("/v1/activities/tokens", ["token": "aa01", "kind": "pushToStart", "attributesType": "T"]),
                ("/v1/widgets/tokens", ["token": "bb02", "kind": "control", "control": "Mute"]),
            ] {
                _ = try await expectConforms("POST", template, template, body: body)
                _ = try await expectConforms("POST", template, template, body: ["token": "cc"])
                _ = try await expectConforms("GET", template, template)
                _ = try await expectConforms("DELETE", template + "/{token}", template + "/" + body["token"]!)
                _ = try await expectConforms("DELETE", template + "/{token}", template + "/ffff")
            }
            _ = try await expectConforms(
                "POST", "/v1/notifications", "/v1/notifications", body: ["target": ["widgets": ["user": "nobody"]]])
            _ = try await expectConforms("POST", "/v1/apps/{appID}/check", "/v1/apps/\(harness.appID)/check")
            _ = try await expectConforms("POST", "/v1/apps/{appID}/check", "/v1/apps/app_none/check", key: admin)
            _ = try await expectConforms("GET", "/v1/notifications/{id}/breakdown", "/v1/notifications/\(id)/breakdown")
            _ = try await expectConforms(
                "GET", "/v1/notifications/{id}/verdicts", "/v1/notifications/\(id)/verdicts?verdict=awaitingDevice")
            _ = try await expectConforms(
                "GET", "/v1/notifications/{id}/verdicts", "/v1/notifications/\(id)/verdicts?verdict=lost")
            _ = try await expectConforms(
                "POST", "/v1/feedback", "/v1/feedback", key: harness.publishableKey,
                body: ["event": "outcome", "outcome": "notAuthorized", "apnsID": apnsID, "token": token])
            // A notification's and an app's lifecycle (issue 47).
            let later = try await expectConforms(
                "POST", "/v1/notifications", "/v1/notifications",
                body: ["target": ["all": true], "content": ["body": "later"], "sendAt": "2999-01-01T00:00:00Z"])
            let laterID = try #require(later["id"].string)
            _ = try await expectConforms(
                "PATCH", "/v1/notifications/{id}", "/v1/notifications/\(laterID)", body: ["content": ["body": "new"]])
            _ = try await expectConforms(
                "PATCH", "/v1/notifications/{id}", "/v1/notifications/\(laterID)", body: ["target": ["all": true]])
            _ = try await expectConforms("DELETE", "/v1/notifications/{id}", "/v1/notifications/\(laterID)")
            _ = try await expectConforms("DELETE", "/v1/notifications/{id}", "/v1/notifications/\(laterID)")
            _ = try await expectConforms(
                "PATCH", "/v1/notifications/{id}", "/v1/notifications/\(id)", body: ["priority": 5])
            _ = try await expectConforms("POST", "/v1/notifications/{id}/resend", "/v1/notifications/\(id)/resend")
            _ = try await expectConforms(
                "POST", "/v1/notifications/{id}/resend", "/v1/notifications/\(id)/resend", body: ["reason": "Nope"])
            _ = try await expectConforms("POST", "/v1/apps/{appID}/resend", "/v1/apps/\(harness.appID)/resend")
            _ = try await expectConforms("POST", "/v1/apps/{appID}/pause", "/v1/apps/\(harness.appID)/pause")
            _ = try await expectConforms("POST", "/v1/apps/{appID}/resume", "/v1/apps/\(harness.appID)/resume")
            _ = try await expectConforms(
                "PATCH", "/v1/apps/{appID}", "/v1/apps/\(harness.appID)", body: ["retention": ["deliveries": 90]])
            _ = try await expectConforms("DELETE", "/v1/apps/{appID}", "/v1/apps/\(harness.appID)")
            let second = try #require(
                try await harness.call("GET", "/v1/apps", key: admin).1.array.first {
                    $0["bundleID"].string == "com.example.second"
                }?[
                    "id"
                ].string)
            _ = try await expectConforms("DELETE", "/v1/apps/{appID}", "/v1/apps/\(second)", key: admin)
            #expect(checked == 63)
        }
    }
}
