import Foundation
import HeraldSupport
import PushProvider
import TestPacing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(
    "The publishable key's limits: per client address, per app, and who the client is behind a proxy", .startsServers)
struct PublicLimitTests {
    /// A registration with the publishable key of a new random token, as from `address` (`X-Forwarded-For`).
    static func register(_ harness: ProviderHarness, from address: String?, key: String? = nil) async throws
        -> (status: Int, retryAfter: String?, body: JSON)
    {
        var request = URLRequest(url: URL(string: harness.baseURL + "/v1/devices")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(key ?? harness.publishableKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let address { request.setValue(address, forHTTPHeaderField: "X-Forwarded-For") }
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        request.httpBody = try JSONSerialization.data(withJSONObject: ["token": token])
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (
            http.statusCode, http.value(forHTTPHeaderField: "Retry-After"),
            JSON(try? JSONSerialization.jsonObject(with: data))
        )
    }

    @Test(
        "a flood from one address is refused past its limit (429, Retry-After, the limit named), then the app's; other addresses and the API key go on"
    )
    func registrationFlood() async throws {
        try await ProviderHarness.with(configure: { configuration in
            configuration.publicLimits.registrationsPerAddress = .init(perMinute: 5)
            configuration.publicLimits.registrationsPerApp = .init(perMinute: 8)
            configuration.trustedProxies = TrustedProxies([try! TrustedProxies.Network(parsing: "127.0.0.0/8")])
        }) { harness in
            for _ in 0..<5 { #expect(try await Self.register(harness, from: "203.0.113.7").status == 201) }
            let refused = try await Self.register(harness, from: "203.0.113.7")
            #expect(refused.status == 429, "\(refused.body)")
            #expect(refused.body["error"]["code"].string == "too_many_requests")
            #expect(refused.body["error"]["message"].string?.contains("registrations per address") == true)
            #expect(refused.body["error"]["message"].string?.contains("--public-registrations-per-address") == true)
            let wait = try #require(refused.retryAfter.flatMap { Int($0) })
            #expect((1...12).contains(wait), "a token comes back every 12 s at 5 a minute; Retry-After \(wait)")
            // The address the proxy names, not the proxy's own: another client is not held back by the first.
            for _ in 0..<3 {
                #expect(try await Self.register(harness, from: "198.51.100.1, 203.0.113.8").status == 201)
            }
            // Eight in all for the app: the next one from a fresh address meets the app's limit.
            let app = try await Self.register(harness, from: "203.0.113.9")
            #expect(app.status == 429 && app.body["error"]["message"].string?.contains("per app") == true)
            // The app's server, with its API key, is never limited here.
            #expect(try await Self.register(harness, from: "203.0.113.7", key: harness.apiKey).status == 201)
            let metrics = try await harness.metrics()
            #expect(metrics.contains(#"herald_provider_public_limited_total{limit="registrations_per_address"} 1"#))
            #expect(metrics.contains(#"herald_provider_public_limited_total{limit="registrations_per_app"} 1"#))
        }
    }

    @Test("without a trusted proxy, X-Forwarded-For is the client's own words and is ignored")
    func headerIgnoredWithoutProxy() async throws {
        try await ProviderHarness.with(configure: { configuration in
            configuration.publicLimits.registrationsPerAddress = .init(perMinute: 3)
        }) { harness in
            for index in 0..<3 {
                let answer = try await Self.register(harness, from: "203.0.113.\(index)")
                #expect(answer.status == 201)
            }
            let refused = try await Self.register(harness, from: "203.0.113.99")
            #expect(refused.status == 429)
        }
    }

    @Test("the limits per address are checked before the key is looked up: made-up pk_ keys use them up too")
    func beforeTheLookup() async throws {
        try await ProviderHarness.with(configure: { configuration in
            configuration.publicLimits.registrationsPerAddress = .init(perMinute: 3)
        }) { harness in
            for _ in 0..<3 {
                let made = try await Self.register(harness, from: nil, key: "pk_madeup")
                #expect(made.status == 401)
            }
            let real = try await Self.register(harness, from: nil)
            #expect(real.status == 429, "\(real.body)")
        }
    }

    @Test("receipts and reads have limits of their own; a limit of 0 is none")
    func receiptsAndReads() async throws {
        try await ProviderHarness.with(configure: { configuration in
            configuration.publicLimits.reportsPerAddress = .init(perMinute: 2)
            configuration.publicLimits.readsPerAddress = .init(perMinute: 0)
        }) { harness in
            let (_, apnsID, token) = try await harness.sentToOneDevice()
            for event in ["delivered", "displayed"] {
                let (status, _) = try await harness.call(
                    "POST", "/v1/feedback", key: harness.publishableKey,
                    body: ["event": event, "apnsID": apnsID, "token": token])
                #expect(status == 202)
            }
            let (status, answer) = try await harness.call(
                "POST", "/v1/feedback", key: harness.publishableKey,
                body: ["event": "opened", "apnsID": apnsID, "token": token])
            #expect(status == 429 && answer["error"]["message"].string?.contains("receipts per address") == true)
            for _ in 0..<20 {
                #expect(try await harness.call("GET", "/v1/categories", key: harness.publishableKey).0 != 429)
            }
        }
    }

    @Test("with the publishable key a device sets at most 16 tags of 64 characters; the API key keeps 64 of 128")
    func tagsFromTheDevice() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            var (status, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey,
                body: ["token": token, "tags": (0..<17).map { "t\($0)" }])
            #expect(status == 400 && answer["error"]["field"].string == "tags", "\(answer)")
            (status, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey,
                body: ["token": token, "tags": ["a", String(repeating: "x", count: 65)]])
            #expect(status == 400 && answer["error"]["field"].string == "tags[1]", "\(answer)")
            (status, answer) = try await harness.call(
                "POST", "/v1/devices", key: harness.publishableKey,
                body: ["token": token, "locale": String(repeating: "x", count: 65)])
            #expect(status == 400 && answer["error"]["field"].string == "locale", "\(answer)")
            (status, _) = try await harness.call(
                "POST", "/v1/devices", body: ["token": token, "tags": (0..<64).map { "tag\($0)" }])
            #expect(status == 201)
        }
    }
}
