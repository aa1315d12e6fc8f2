import APNSCore
import APNSGateway
import Crypto
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

/// `POST /v1/apps/{id}/check`: herald doctor's credentials and clock checks, run by the provider with the app's
/// sealed credentials.
@Suite("The provider checks an app's credentials without notifying anyone", .startsServers)
struct AppCheckTests {
    @Test("the app's own credentials pass with the clock; a key APNs does not know is named; no device is notified")
    func checks() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            var (status, answer) = try await harness.call("POST", "/v1/apps/\(harness.appID)/check")
            #expect(status == 200 && answer["ok"].bool == true, "\(answer)")
            #expect(answer["checks"].array.map { $0["check"].string } == ["credentials", "clock"], "\(answer)")
            #expect(answer["checks"][0]["found"].string?.contains("400 BadDeviceToken, as expected") == true)
            #expect(harness.gateway.server.store.storedNotification(for: try .init(hex: token)) == nil)

            // An app whose key the local APNs does not know.
            var body = ProviderHarness.appBody(harness.gateway, bundleID: "com.example.other")
            body["authentication"] = [
                "kind": "token", "teamID": "DEF123GHIJ", "keyID": "ZZZ123DEFG",
                "privateKey": P256.Signing.PrivateKey().pemRepresentation,
            ]
            let (_, created) = try await harness.call("POST", "/v1/apps", key: harness.adminToken, body: body)
            let other = try #require(created["app"]["id"].string ?? created["id"].string, "\(created)")
            (status, answer) = try await harness.call("POST", "/v1/apps/\(other)/check", key: harness.adminToken)
            #expect(status == 200 && answer["ok"].bool == false, "\(answer)")
            #expect(answer["checks"][0]["outcome"].string == "failed", "\(answer)")
            #expect(answer["checks"][0]["found"].string?.contains("403 InvalidProviderToken") == true, "\(answer)")

            // Another app's key may not check it; an unknown app is 404.
            (status, _) = try await harness.call("POST", "/v1/apps/\(other)/check")
            #expect(status == 403)
            (status, _) = try await harness.call("POST", "/v1/apps/app_nothing/check", key: harness.adminToken)
            #expect(status == 404)

            // The probes are checks, not sends: the series operators alert on (BadDeviceToken, InvalidProviderToken)
            // do not move, and no app is paused for them.
            let metrics = try await harness.metrics()
            #expect(!metrics.contains(#"reason="BadDeviceToken""#), "\(metrics)")
            #expect(!metrics.contains(#"reason="InvalidProviderToken""#), "\(metrics)")
            #expect(metrics.contains(#"herald_provider_credential_checks_total{outcome="passed"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"herald_provider_credential_checks_total{outcome="failed"} 1"#), "\(metrics)")
            #expect(try await harness.call("GET", "/v1/apps/\(other)", key: harness.adminToken).1["pausedAt"].isNull)
        }
    }
}
