import APNSCore
import APNSGateway
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An answer about the app's credentials (a wrong team ID: `InvalidProviderToken`) pauses the app at the first
/// answer instead of ending a whole broadcast: every delivery waits, no attempt spent, `/healthz`, the metrics and
/// each delivery's verdict say why; correcting the credentials sends them all.
@Suite("A credentials mistake pauses the app instead of burning a broadcast", .startsServers)
struct CredentialPauseTests {
    @Test("a wrong team ID: 30 devices wait, the app is paused once; the right team ID sends all 30, each once")
    func wrongTeamIDPausesThenSends() async throws {
        try await ProviderHarness.with { harness in
            for _ in 0..<30 {
                #expect(try await harness.call("POST", "/v1/devices", body: ["token": harness.gatewayToken()]).0 == 201)
            }
            var wrong = ProviderHarness.appBody(harness.gateway)["authentication"] as! [String: Any]
            wrong["teamID"] = "ACMETEAM02"
            let (patched, _) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: ["authentication": wrong])
            #expect(patched == 200)
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "hello"]])
            #expect(status == 202)
            let id = try #require(created["id"].string)

            try await harness.until("every delivery waits for the app's credentials") {
                let deliveries = try await harness.call("GET", "/v1/notifications/\(id)/deliveries?limit=100").1.array
                return deliveries.count == 30
                    && deliveries.allSatisfy { $0["verdict"]["verdict"].string == "waitingForCredentials" }
            }
            let waiting = try await harness.call("GET", "/v1/notifications/\(id)/deliveries?limit=100").1.array
            #expect(waiting.allSatisfy { $0["attempts"].int == 0 }, "\(waiting.map { $0["attempts"].int })")
            let sentence = waiting[0]["verdict"]["sentence"].string ?? ""
            #expect(sentence.contains("InvalidProviderToken"), "\(sentence)")
            #expect(waiting[0]["verdict"]["next"].string?.contains("herald doctor --app \(harness.appID)") == true)
            let report = try await harness.call("GET", "/v1/notifications/\(id)").1
            #expect(report["stats"]["rejected"].object?.isEmpty != false, "\(report)")

            let app = try await harness.call("GET", "/v1/apps/\(harness.appID)").1
            #expect(app["pauseReason"].string == "InvalidProviderToken" && app["pausedAt"].string != nil, "\(app)")
            let health = try await harness.call("GET", "/healthz").1
            #expect(health["version"].string?.isEmpty == false, "\(health)")
            #expect(health["credentials"].string == "refused", "\(health)")
            #expect(health["credentialPaused"][0]["reason"].string == "InvalidProviderToken", "\(health)")
            let anonymous = try await ProviderHarness.request("GET", harness.baseURL + "/healthz", key: nil).1
            #expect(anonymous["credentialPausedApps"].int == 1 && anonymous["credentialPaused"].isNull)
            let metrics = try await harness.metrics()
            #expect(metrics.contains("herald_provider_credential_paused_apps 1"), "\(metrics)")
            #expect(
                metrics.contains(#"herald_provider_credential_pauses_total{reason="InvalidProviderToken"} 1"#),
                "\(metrics)")
            #expect(
                metrics.contains(
                    #"result="rejected",reason="InvalidProviderToken",push_type="alert",priority="10"} 1"#),
                "one answer told it: \(metrics)")

            // The right team ID: the app goes on by itself, and every delivery is sent once.
            var right = wrong
            right["teamID"] = "DEF123GHIJ"
            let (fixed, after) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)", body: ["authentication": right])
            #expect(fixed == 200 && after["pausedAt"].isNull && after["pauseReason"].isNull, "\(after)")
            let finished = try await harness.finished(id)
            #expect(finished["stats"]["accepted"].int == 30, "\(finished)")
            let sent = try await harness.call("GET", "/v1/notifications/\(id)/deliveries?limit=100").1.array
            #expect(sent.allSatisfy { $0["attempts"].int == 1 }, "\(sent.map { $0["attempts"].int })")
            #expect(try await harness.call("GET", "/healthz").1["credentials"].string == "accepted")
        }
    }

    @Test(
        "resuming the app also sends what waited for its credentials; a credential reason resends only after a change")
    func resumeAndResend() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            #expect(try await harness.call("POST", "/v1/devices", body: ["token": token]).0 == 201)
            harness.gateway.server.faults.add(
                .init(effect: .answer(status: 403, reason: APNSReason(rawValue: "TopicDisallowed")), count: 1))
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "hello"]])
            let id = try #require(created["id"].string)
            try await harness.until("the app is paused for its topic") {
                try await harness.call("GET", "/v1/apps/\(harness.appID)").1["pauseReason"].string == "TopicDisallowed"
            }
            // Resending a credential reason before anything changed is refused, and says what to do.
            let (refused, why) = try await harness.call(
                "POST", "/v1/notifications/\(id)/resend", body: ["reason": "TopicDisallowed"])
            #expect(refused == 409 && why["error"]["message"].string?.contains("herald doctor --app") == true, "\(why)")

            #expect(try await harness.call("POST", "/v1/apps/\(harness.appID)/resume").0 == 200)
            let finished = try await harness.finished(id)
            #expect(finished["stats"]["accepted"].int == 1, "\(finished)")
        }
    }
}
