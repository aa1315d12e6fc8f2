import APNSCore
import Foundation
import GatewayTestSupport
import PushProvider
import TestPacing
import Testing

/// Numbers at and past the edges of their types where the provider reads one from a caller: each is an answer with
/// a status and a message, never a trap that ends the process.
@Suite("Extreme numbers on the provider", .startsServers)
struct ProviderExtremeNumberTests {
    @Test(
        "a notification's expiration at 2^63-1 is accepted, past 64 bits or negative it is a 400 naming the field",
        arguments: [
            ("9223372036854775807", 202), ("9223372036854775296", 202), ("4000000000", 202),
            ("9223372036854775808", 400), ("-1", 400), ("1e30", 400), ("-9223372036854775808", 400),
        ])
    func expiration(value: String, status: Int) async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            let body = #"{"target":{"token":"\#(token)"},"content":{"body":"x"},"expiration":\#(value)}"#
            let (answered, json) = try await harness.call("POST", "/v1/notifications", body: Data(body.utf8))
            #expect(answered == status, "expiration \(value): \(json)")
            if status == 400 { #expect(json["error"]["field"].string == "expiration", "\(json)") }
            if status == 202 { _ = try await harness.finished(try #require(json["id"].string)) }
            let (alive, _) = try await harness.call("GET", "/v1/notifications")
            #expect(alive == 200)
        }
    }

    @Test(
        "the console's provider-token check refuses an iat far outside the hour instead of crashing",
        arguments: ["1e30", "-1e30", "9223372036854775807", "-9223372036854775808"])
    func providerTokenAge(iat: String) async throws {
        try await ProviderHarness.with { harness in
            let jwt = String(
                try HandMadeJWT.authorization(key: harness.gateway.key, iat: iat).dropFirst("bearer ".count))
            let result = try await harness.provider.apps.checkProviderToken(jwt, appID: harness.appID)
            guard case .failure(let rejection) = result else {
                Issue.record("iat \(iat) was accepted")
                return
            }
            #expect([APNSReason.invalidProviderToken, .expiredProviderToken].contains(rejection.reason))
            #expect(rejection.message.contains("minutes"))
        }
    }

    @Test(
        "query numbers past Int's range are a 400 or the nearest bound, never a crash",
        arguments: [
            "/v1/notifications?limit=9223372036854775808", "/v1/notifications?limit=-9223372036854775808",
            "/v1/devices?limit=99999999999999999999", "/v1/notifications?cursor=9223372036854775807",
            "/v1/notifications?cursor=-1",
        ])
    func queryNumbers(path: String) async throws {
        try await ProviderHarness.with { harness in
            let (status, json) = try await harness.call("GET", path)
            #expect([200, 400].contains(status), "\(path): \(status) \(json)")
            let (alive, _) = try await harness.call("GET", "/v1/notifications")
            #expect(alive == 200)
        }
    }
}
