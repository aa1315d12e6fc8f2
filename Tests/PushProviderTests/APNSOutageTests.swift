import APNSCore
import APNSGateway
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// APNs unreachable (the gateway down: every connection refused) is a wait, never a loss: deliveries stay in the
/// queue without spending attempts, the app's sends pause behind one probe, and all go out once APNs is back.
@Suite("An APNs outage is a wait, not a failure", .startsServers)
struct APNSOutageTests {
    @Test(
        "APNs down while a notification to 20 devices is queued: none given up, none counted as rejected; all accepted after it returns"
    )
    func outageIsAWait() async throws {
        try await ProviderHarness.with { harness in
            for _ in 0..<20 {
                #expect(try await harness.call("POST", "/v1/devices", body: ["token": harness.gatewayToken()]).0 == 201)
            }
            try await harness.gateway.server.shutdown()
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "while down"]])
            #expect(status == 202)
            let id = try #require(created["id"].string)

            // The provider notices, says so, and keeps every delivery waiting with no attempt spent.
            var health = JSON(nil)
            try await harness.until("the provider says APNs is unreachable") {
                health = try await harness.call("GET", "/healthz").1
                return health["apns"].string == "unreachable"
            }
            #expect(health["unreachable"][0]["app"].string == harness.appID, "\(health)")
            // The load balancer's probe, without a key, is told how many apps are out, not which.
            let anonymous = try await ProviderHarness.request("GET", harness.baseURL + "/healthz", key: nil).1
            #expect(anonymous["unreachableApps"].int == 1 && anonymous["unreachable"].isNull, "\(anonymous)")
            try await harness.until("every delivery waits for APNs") {
                let deliveries = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
                return deliveries.count == 20
                    && deliveries.allSatisfy { $0["verdict"]["verdict"].string == "waitingForAPNs" }
            }
            let waiting = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
            #expect(waiting.allSatisfy { $0["attempts"].int == 0 }, "\(waiting.map { $0["attempts"].int })")
            #expect(waiting[0]["verdict"]["sentence"].string?.contains("could not be reached") == true)
            let report = try await harness.call("GET", "/v1/notifications/\(id)").1
            #expect(report["stats"]["rejected"].object?.isEmpty != false, "\(report)")
            let metrics = try await harness.metrics()
            #expect(!metrics.contains(#"result="rejected",reason="ConnectionFailed""#), "\(metrics)")
            #expect(metrics.contains("herald_provider_apns_unreachable_apps 1"), "\(metrics)")
            // 20 deliveries waiting are not 20 failed sends: one outage, and a connection attempt or a few.
            #expect(!metrics.contains(#"herald_provider_sends_total{"#), "\(metrics)")
            #expect(metrics.contains("herald_provider_apns_outages_total 1\n"), "\(metrics)")
            let attempts = metrics.split(separator: "\n").first {
                $0.hasPrefix("herald_provider_apns_connect_failures_total ")
            }
            let failures = attempts.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
            #expect(failures >= 1 && failures < 20, "\(attempts ?? "no connect failures")")

            // APNs comes back on the same address: everything goes out, each delivery sent once.
            let back = try await TestGateway.start(directory: harness.gateway.directory, key: harness.gateway.key) {
                $0.port = harness.gateway.port
            }
            let finished = try await harness.finished(id)
            #expect(finished["stats"]["accepted"].int == 20, "\(finished)")
            let sent = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
            #expect(sent.allSatisfy { $0["attempts"].int == 1 }, "\(sent.map { $0["attempts"].int })")
            #expect(try await harness.call("GET", "/healthz").1["apns"].string == "reachable")
            try await back.server.shutdown()
        }
    }

    @Test(
        "a capped notification that waited out an outage goes to the user's devices when APNs returns (its own log entry does not cap it); the next one is capped"
    )
    func cappedNotificationWaitsOutAnOutage() async throws {
        try await ProviderHarness.with { harness in
            let (patched, app) = try await harness.call(
                "PATCH", "/v1/apps/\(harness.appID)",
                body: ["frequencyCaps": [["category": "marketing", "limit": 1, "window": "1d"]]])
            #expect(patched == 200, "\(app)")
            for _ in 0..<2 {
                let body: [String: Any] = ["token": try harness.gatewayToken(), "userID": "ana"]
                #expect(try await harness.call("POST", "/v1/devices", body: body).0 == 201)
            }
            try await harness.gateway.server.shutdown()
            let marketing: [String: Any] = [
                "target": ["user": "ana"], "content": ["body": "sale"], "capCategory": "marketing",
            ]
            let (status, created) = try await harness.call("POST", "/v1/notifications", body: marketing)
            #expect(status == 202, "\(created)")
            let id = try #require(created["id"].string)
            try await harness.until("both deliveries wait for APNs") {
                let deliveries = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1.array
                return deliveries.count == 2
                    && deliveries.allSatisfy { $0["verdict"]["verdict"].string == "waitingForAPNs" }
            }
            let back = try await TestGateway.start(directory: harness.gateway.directory, key: harness.gateway.key) {
                $0.port = harness.gateway.port
            }
            let finished = try await harness.finished(id)
            #expect(finished["stats"]["accepted"].int == 2, "\(finished)")
            #expect(finished["stats"]["rejected"]["Capped"].int == nil, "\(finished)")
            let (_, next) = try await harness.call("POST", "/v1/notifications", body: marketing)
            let capped = try await harness.finished(try #require(next["id"].string))
            #expect(capped["stats"]["rejected"]["Capped"].int == 2, "\(capped)")
            try await back.server.shutdown()
        }
    }
}
