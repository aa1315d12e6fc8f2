import Foundation
import TestPacing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Provider API: apps, keys and devices", .startsServers)
struct AppAndDeviceAPITests {
    @Test("creating an app needs the admin token, returns keys once and never the secret")
    func createApp() async throws {
        try await ProviderHarness.with { harness in
            let body = ProviderHarness.appBody(harness.gateway, bundleID: "com.example.other")
            let (noKey, noKeyAnswer) = try await ProviderHarness.request(
                "POST", harness.baseURL + "/v1/apps", key: nil, body: body)
            #expect(noKey == 401)
            #expect(noKeyAnswer["error"]["code"].string == "unauthorized")
            let (withAPIKey, _) = try await harness.call("POST", "/v1/apps", body: body)
            #expect(withAPIKey == 403)
            let (status, created) = try await harness.call("POST", "/v1/apps", key: harness.adminToken, body: body)
            #expect(status == 201)
            #expect(created["apiKey"].string?.hasPrefix("sk_") == true)
            #expect(created["app"]["publishableKey"].string?.hasPrefix("pk_") == true)
            #expect(created["app"]["authentication"]["keyID"].string == "ABC123DEFG")
            #expect(!created.description.contains("PRIVATE KEY"))
            let (_, listed) = try await harness.call("GET", "/v1/apps", key: harness.adminToken)
            #expect(listed.array.count == 2)
            #expect(!listed.description.contains("PRIVATE KEY"))
        }
    }

    @Test("a bad app names the field")
    func badApp() async throws {
        try await ProviderHarness.with { harness in
            var body = ProviderHarness.appBody(harness.gateway)
            body["environment"] = "staging"
            var (status, answer) = try await harness.call("POST", "/v1/apps", key: harness.adminToken, body: body)
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "environment")
            body = ProviderHarness.appBody(harness.gateway)
            body["authentication"] = [
                "kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG", "privateKey": "x",
            ]
            (status, answer) = try await harness.call("POST", "/v1/apps", key: harness.adminToken, body: body)
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "authentication.privateKey")
            body = ProviderHarness.appBody(harness.gateway)
            body.removeValue(forKey: "bundleID")
            (status, answer) = try await harness.call("POST", "/v1/apps", key: harness.adminToken, body: body)
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "bundleID")
            // U+0000, which PostgreSQL's text cannot hold, is refused naming the field on either database, in a new
            // app and in a change to one, and the app is left as it was.
            body = ProviderHarness.appBody(harness.gateway)
            body["name"] = "Scores\u{0}"
            (status, answer) = try await harness.call("POST", "/v1/apps", key: harness.adminToken, body: body)
            #expect(status == 400 && answer["error"]["field"].string == "name", "\(answer)")
            #expect(answer["error"]["message"].string?.contains("U+0000") == true, "\(answer)")
            for (field, value) in [("name", "Sco\u{0}res"), ("webhookURL", "https://hooks.example/\u{0}")] {
                (status, answer) = try await harness.call("PATCH", "/v1/apps/\(harness.appID)", body: [field: value])
                #expect(status == 400 && answer["error"]["field"].string == field, "\(answer)")
            }
            let (_, app) = try await harness.call("GET", "/v1/apps/\(harness.appID)")
            #expect(app["name"].string?.contains("\u{0}") == false && app["webhookURL"].string == nil, "\(app)")
            // In categories, a NUL in a title is kept escaped in their JSON: accepted and served back on both.
            let config =
                #"{"UNNotificationCategory": {"see": {"identifier": "see", "actions": ["love"]}}, "#
                + #""UNNotificationAction": {"love": {"identifier": "love", "title": "I\u0000love it"}}}"#
            (status, answer) = try await harness.call(
                "PUT", "/v1/apps/\(harness.appID)/categories", body: Data(config.utf8))
            #expect(status == 200, "\(answer)")
            let (_, served) = try await harness.call("GET", "/v1/apps/\(harness.appID)/categories")
            #expect(served["NotificationConfig"]["UNNotificationAction"]["love"]["title"].string == "I\u{0}love it")
        }
    }

    @Test("API keys: a new key works, a deleted key does not, a key cannot reach another app")
    func apiKeys() async throws {
        try await ProviderHarness.with { harness in
            let (status, key) = try await harness.call("POST", "/v1/apps/\(harness.appID)/keys")
            #expect(status == 201)
            let newKey = try #require(key["apiKey"].string)
            #expect(try await harness.call("GET", "/v1/devices", key: newKey).0 == 200)
            #expect(
                try await harness.call("DELETE", "/v1/apps/\(harness.appID)/keys/\(key["id"].string ?? "")").0 == 204)
            #expect(try await harness.call("GET", "/v1/devices", key: newKey).0 == 401)
            let (_, other) = try await harness.call(
                "POST", "/v1/apps", key: harness.adminToken,
                body: ProviderHarness.appBody(harness.gateway, bundleID: "com.example.b"))
            let otherID = try #require(other["app"]["id"].string)
            #expect(try await harness.call("GET", "/v1/apps/\(otherID)").0 == 403)
            #expect(try await harness.call("GET", "/v1/devices", key: harness.publishableKey).0 == 403)
        }
    }

    @Test("a path parameter is percent-decoded: a user ID with @ and a space gets a token for that user")
    func percentEncodedPath() async throws {
        try await ProviderHarness.with { harness in
            let (status, issued) = try await harness.call("POST", "/v1/users/ana%40example.com%20x/token")
            #expect(status == 201 && issued["userID"].string == "ana@example.com x", "\(issued)")
            // A fraction where a whole number is needed is named, not "not valid JSON".
            let (fraction, why) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: Data(#"{"rateLimit": 1.5}"#.utf8))
            #expect(fraction == 400 && why["error"]["field"].string == "rateLimit", "\(why)")
            // An API key names only its own app, in the path or in ?app=.
            let (other, forbidden) = try await harness.call(
                "POST", "/v1/devices/import?app=app_someone_else",
                body: ["devices": [["token": String(repeating: "ab", count: 32)]]])
            #expect(other == 403, "\(forbidden)")
            // U+0000 in a user ID is refused, naming the field, on either database.
            let (refused, answer) = try await harness.call("POST", "/v1/users/a%00b/token")
            #expect(refused == 400 && answer["error"]["field"].string == "userID", "\(answer)")
        }
    }

    @Test("devices register with the publishable key; fields update; bad fields are named")
    func registerDevices() async throws {
        try await ProviderHarness.with { harness in
            let token = String(repeating: "ab", count: 32)
            let (_, issued) = try await harness.call("POST", "/v1/users/alice/token")
            let userToken = try #require(issued["userToken"].string)
            var (status, device) = try await harness.call(
                "POST", "/v1/devices?key=\(harness.publishableKey)", key: "",
                body: [
                    "token": token, "userID": "alice", "userToken": userToken, "tags": ["sports", "news"],
                    "timeZone": "Asia/Shanghai",
                ])
            #expect(status == 201)
            #expect(device["active"].bool == true)
            // A device bound to alice changes only with alice's user token.
            (status, device) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": token, "appVersion": "2.0"])
            #expect(status == 403)
            #expect(device["error"]["message"].string?.contains("alice") == true)
            (status, device) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey,
                body: ["token": token, "appVersion": "2.0", "userToken": userToken])
            #expect(status == 200)
            #expect(device["userID"].string == "alice")
            #expect(device["appVersion"].string == "2.0")
            #expect(device["tags"].array.count == 2)
            let (_, byTag) = try await harness.call("GET", "/v1/devices?tag=sports")
            #expect(byTag.array.map { $0["token"].string } == [token])
            let (_, byUser) = try await harness.call("GET", "/v1/devices?user=bob")
            #expect(byUser.array.isEmpty)
            var answer: JSON
            (status, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": "xyz"])
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "token")
            (status, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": token, "timeZone": "Mars/Base"])
            #expect(answer["error"]["field"].string == "timeZone")
            (status, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": token, "environment": "production"])
            #expect(answer["error"]["field"].string == "environment")
            (status, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": token, "userID": 1])
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "userID")
            // U+0000, which PostgreSQL's text cannot hold, is refused naming the field on either database (it was a
            // 503 "try again" on PostgreSQL, for a request that could never succeed).
            (status, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey, body: ["token": token, "userID": "a\u{0}b"])
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "userID", "\(answer)")
            #expect(answer["error"]["message"].string?.contains("U+0000") == true, "\(answer)")
            (status, answer) = try await harness.call(
                "POST", "/v1/devices/import",
                body: [
                    "devices": [
                        ["token": String(repeating: "cd", count: 32)], ["token": token, "tags": ["x", "\u{0}"]],
                    ]
                ])
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "devices[1].tags[1]", "\(answer)")
            #expect(try await harness.call("GET", "/v1/devices/\(String(repeating: "cd", count: 32))").0 == 404)
            // The same for the other texts a store keeps or looks up: a notification's user, an activity token's.
            (status, answer) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["user": "ana\u{0}"], "content": ["title": "Hi"]])
            #expect(status == 400 && answer["error"]["field"].string == "target.user", "\(answer)")
            (status, answer) = try await harness.call(
                "POST", "/v1/activities/tokens",
                body: ["token": "aa01", "kind": "pushToStart", "attributesType": "Score\u{0}", "userID": "ana"])
            #expect(status == 400 && answer["error"]["field"].string == "attributesType", "\(answer)")
            #expect(try await harness.call("DELETE", "/v1/devices/\(token)").0 == 204)
            #expect(try await harness.call("GET", "/v1/devices/\(token)").0 == 404)
        }
    }

    @Test("a registration that replaces an old token retires it; the publishable key needs the owner's proof")
    func replacedToken() async throws {
        try await ProviderHarness.with { harness in
            let (old, new, other) = (
                String(repeating: "ab", count: 32), String(repeating: "cd", count: 32),
                String(repeating: "ef", count: 32)
            )
            let (_, issued) = try await harness.call("POST", "/v1/users/alice/token")
            let userToken = try #require(issued["userToken"].string)
            let pk = harness.publishableKey
            #expect(
                try await harness.call(
                    "POST", "/v1/devices", key: pk, body: ["token": old, "userID": "alice", "userToken": userToken]
                ).0 == 201)
            let (refused, why) = try await harness.call(
                "POST", "/v1/devices", key: pk, body: ["token": other, "replaces": old])
            #expect(refused == 403)
            #expect(why["error"]["message"].string?.contains("alice") == true)
            #expect(
                try await harness.call("GET", "/v1/devices/\(other)").0 == 404, "a refused registration adds nothing")
            let (status, _) = try await harness.call(
                "POST", "/v1/devices", key: pk,
                body: ["token": new, "userID": "alice", "userToken": userToken, "replaces": old])
            #expect(status == 201)
            let (_, retired) = try await harness.call("GET", "/v1/devices/\(old)")
            #expect(retired["active"].bool == false)
            #expect(retired["deactivationReason"].string == "replaced")
            let (_, alice) = try await harness.call("GET", "/v1/devices?user=alice&active=true")
            #expect(alice.array.map { $0["token"].string } == [new])
            // The retired token is not brought back by the publishable key alone: it would get alice's pushes again.
            let (revived, whyNot) = try await harness.call("POST", "/v1/devices", key: pk, body: ["token": old])
            #expect(revived == 403 && whyNot["error"]["message"].string?.contains("alice") == true, "\(whyNot)")
            #expect(try await harness.call("GET", "/v1/devices/\(old)").1["active"].bool == false)
            // Its owner may.
            #expect(
                try await harness.call(
                    "POST", "/v1/devices", key: pk, body: ["token": old, "userID": "alice", "userToken": userToken]
                ).0 == 200)
            let (bad, answer) = try await harness.call(
                "POST", "/v1/devices", key: pk, body: ["token": new, "replaces": "nothex"])
            #expect(bad == 400)
            #expect(answer["error"]["field"].string == "replaces")
        }
    }

    @Test("strict input: an unknown field is named with the one meant, bad JSON has a line and column")
    func strictInput() async throws {
        try await ProviderHarness.with { harness in
            var (status, answer) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["title": "Hi", "boddy": "x"]])
            #expect(status == 400)
            #expect(answer["error"]["field"].string == "content.boddy")
            #expect(answer["error"]["message"].string?.contains("did you mean body?") == true, "\(answer)")
            (status, answer) = try await harness.call(
                "POST", "/v1/notifications", body: ["targets": ["all": true]])
            #expect(answer["error"]["field"].string == "targets")
            (status, answer) = try await harness.call(
                "POST", "/v1/devices/import",
                body: ["devices": [["token": String(repeating: "ab", count: 32)], ["token": "cd", "tagz": ["a"]]]])
            #expect(answer["error"]["field"].string == "devices[1].tagz")
            #expect(try await harness.call("GET", "/v1/devices?limit=10").1.array.isEmpty, "nothing imported")
            let url = URL(string: "\(harness.baseURL)/v1/notifications")!
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("Bearer \(harness.apiKey)", forHTTPHeaderField: "Authorization")
            request.httpBody = Data("{\n  \"target\": {\"all\": true},\n  \"content\": {\"title\": \"Hi\",}\n}".utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 400)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains("line 3, column"), "\(text)")
            var report = URLRequest(url: URL(string: "\(harness.baseURL)/v1/feedback?key=\(harness.publishableKey)")!)
            report.httpMethod = "POST"
            report.httpBody = Data(#"{"event": "opened", "apnsID": }"#.utf8)
            let (reportData, reportResponse) = try await URLSession.shared.data(for: report)
            #expect((reportResponse as? HTTPURLResponse)?.statusCode == 400)
            let reportText = String(decoding: reportData, as: UTF8.self)
            #expect(reportText.contains("line 1, column 31"), "a lenient body is located too: \(reportText)")
        }
    }

    @Test("a notification that matches no device is accepted and says so")
    func noDeviceWarning() async throws {
        try await ProviderHarness.with { harness in
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["user": "nobody"], "content": ["title": "Hi"]])
            #expect(status == 202)
            #expect(created["stats"]["targeted"].int == 0)
            #expect(created["warning"].string?.contains("no active device of this app matches user:nobody") == true)
        }
    }

    @Test("health and metrics")
    func operations() async throws {
        try await ProviderHarness.with { harness in
            let (status, health) = try await ProviderHarness.request("GET", harness.baseURL + "/healthz", key: nil)
            #expect(status == 200)
            #expect(health["status"].string == "ok")
            // Without a key it names no app: the count only.
            #expect(health["unreachableApps"].int == 0 && health["unreachable"].isNull, "\(health)")
            #expect(try await harness.call("GET", "/healthz").1["unreachable"].array.isEmpty)
            var request = URLRequest(url: URL(string: harness.baseURL + "/metrics")!)
            request.httpMethod = "GET"
            let (data, _) = try await URLSession.shared.data(for: request)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains("herald_provider_queue_depth"))
            #expect(text.contains("herald_provider_apns_connections"))
        }
    }
}
