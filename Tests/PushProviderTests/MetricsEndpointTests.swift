import Foundation
import TestPacing
import Testing

@testable import PushProvider

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(
    "GET /metrics: what an operator alerts on, behind a token, with series that do not grow with traffic",
    .startsServers)
struct MetricsEndpointTests {
    /// The exposition's samples (no comment lines): one per series.
    func samples(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    /// `/metrics` read with `key` (none: no Authorization header): its status and text.
    func scrape(_ harness: ProviderHarness, key: String?) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: harness.baseURL + "/metrics")!)
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("after a send, receipts and refusals, /metrics has the API, queue, sends, receipts and database series")
    func afterTraffic() async throws {
        try await ProviderHarness.with { harness in
            let (_, apnsID, token) = try await harness.sentToOneDevice()
            let report = ["event": "displayed", "apnsID": apnsID, "token": token]
            #expect(try await harness.call("POST", "/v1/feedback", key: harness.publishableKey, body: report).0 == 202)
            #expect(try await harness.call("POST", "/v1/feedback", key: harness.publishableKey, body: report).0 == 202)
            let unknown = ["event": "displayed", "apnsID": UUID().uuidString.lowercased(), "token": token]
            #expect(try await harness.call("POST", "/v1/feedback", key: harness.publishableKey, body: unknown).0 == 404)
            #expect(try await harness.call("GET", "/no/such/path/\(UUID())").0 == 404)
            let text = try await harness.metrics()
            for expected in [
                #"herald_provider_sends_total{result="accepted",reason="",push_type="alert",priority="10"} 1"#,
                #"herald_provider_http_requests_total{route="/v1/notifications",method="POST",status="202"} 1"#,
                #"herald_provider_http_requests_total{route="unmatched",method="GET",status="404"} 1"#,
                #"herald_provider_receipts_total{event="displayed",outcome="recorded"} 1"#,
                #"herald_provider_receipts_total{event="displayed",outcome="repeated"} 1"#,
                #"herald_provider_receipts_refused_total{cause="unknown_delivery"} 1"#,
                #"herald_provider_database_statement_duration_seconds_count{operation="lease"}"#,
                #"herald_provider_database_statement_duration_seconds_count{operation="record"}"#,
                "herald_provider_queue_oldest_due_age_seconds 0.0\n",
                "herald_provider_queue_leased 0.0\n",
                "herald_provider_webhook_queue_pending 0.0\n",
                "herald_provider_apns_outages_total 0\n",
                "herald_provider_apns_in_flight 0.0\n",
            ] {
                #expect(text.contains(expected), "\(expected) is not in /metrics:\n\(text)")
            }
            // Nothing about one device or one notification is a label.
            #expect(!text.contains(token) && !text.contains(apnsID))
        }
    }

    @Test("the number of series does not grow with notifications, devices or paths")
    func boundedSeries() async throws {
        try await ProviderHarness.with { harness in
            /// Sends `count` notifications, each to a new device, reading an unknown notification and an unknown
            /// path beside each; waits until all are answered.
            func traffic(_ count: Int, from first: Int) async throws {
                var ids: [String] = []
                for index in first..<(first + count) {
                    let (status, created) = try await harness.call(
                        "POST", "/v1/notifications",
                        body: ["target": ["token": try harness.gatewayToken()], "content": ["body": "n\(index)"]])
                    #expect(status == 202)
                    ids.append(try #require(created["id"].string))
                    _ = try await harness.call("GET", "/v1/notifications/\(UUID())")
                    _ = try await harness.call("GET", "/paths/\(index)")
                }
                for id in ids { _ = try await harness.finished(id) }
            }
            try await traffic(10, from: 0)
            _ = try await harness.metrics()  // the scrape's own series
            let before = samples(try await harness.metrics())
            try await traffic(200, from: 10)
            let after = samples(try await harness.metrics())
            // The same kinds of work again: the same series, none per notification, device or path.
            let names = { (lines: [Substring]) in Set(lines.map { $0.prefix { $0 != " " } }) }
            let added = names(after).subtracting(names(before))
            #expect(added.isEmpty && names(after).count == names(before).count, "new series: \(added)")
            #expect(
                after.contains {
                    $0.hasPrefix(#"herald_provider_sends_total{result="accepted""#) && $0.hasSuffix(" 210")
                })
        }
    }

    @Test("with a token required, /metrics answers the scrape token and the admin token, and 401 to anyone else")
    func tokenRequired() async throws {
        let token = "scrape-" + UUID().uuidString
        try await ProviderHarness.with(configure: { $0.metricsAccess = .token(scrapeToken: token) }) { harness in
            let (none, message) = try await scrape(harness, key: nil)
            #expect(none == 401 && message.contains("--metrics-token-file"), "\(message)")
            #expect(try await scrape(harness, key: harness.apiKey).0 == 401, "an app's key reads no operator data")
            #expect(try await scrape(harness, key: harness.publishableKey).0 == 401)
            #expect(try await scrape(harness, key: token + "x").0 == 401)
            let (scraped, text) = try await scrape(harness, key: token)
            #expect(scraped == 200 && text.contains("herald_provider_build_info"))
            #expect(try await scrape(harness, key: harness.adminToken).0 == 200)
            // The scrape token opens /metrics only.
            #expect(try await harness.call("GET", "/v1/apps", key: token).0 == 401)
        }
    }
}
