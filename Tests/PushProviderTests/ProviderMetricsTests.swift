import APNSClient
import APNSCore
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import PushProvider

@Suite("Metrics count what happened, once, with labels from bounded sets")
struct ProviderMetricsTests {
    func notification(pushType: APNSPushType? = .alert, priority: APNSPriority? = nil) -> APNSNotification {
        var headers = APNSRequestHeaders()
        headers.pushType = pushType
        headers.priority = priority
        return APNSNotification(deviceToken: "ab", headers: headers, payload: ByteBuffer(string: "{}"))
    }

    func rejected(_ status: Int?, _ reason: APNSReason) -> APNSResult {
        .rejected(APNSRejection(status: status, reason: reason, message: "test"))
    }

    @Test("a delivery that never reached a connection is not a send; the failed connection is counted once")
    func connectionFailuresAreNotSends() {
        let metrics = ProviderMetrics()
        for _ in 0..<10_000 {
            metrics.notificationFinished(notification(), result: rejected(nil, .connectionFailed), latency: .zero)
        }
        metrics.connectionFailed(reason: "connection refused")
        let text = metrics.render()
        #expect(!text.contains("herald_provider_sends_total{"), "\(text)")
        #expect(text.contains("herald_provider_apns_connect_failures_total 1\n"), "\(text)")
        #expect(text.contains("herald_provider_send_latency_seconds_count 0\n"), "\(text)")
    }

    @Test("sends are labelled by result, a known reason or other, a known push type or other, and the priority")
    func sendLabels() {
        let metrics = ProviderMetrics()
        metrics.notificationFinished(
            notification(pushType: .background, priority: .conservePower),
            result: .accepted(APNSAcceptance(apnsID: "x")), latency: .milliseconds(3))
        metrics.notificationFinished(notification(), result: rejected(410, .unregistered), latency: .milliseconds(3))
        metrics.notificationFinished(
            notification(pushType: APNSPushType(rawValue: "made-up"), priority: APNSPriority(rawValue: 7)),
            result: rejected(400, APNSReason(rawValue: "Reason\(UUID())")), latency: .milliseconds(3))
        metrics.notificationFinished(notification(), result: rejected(nil, .idleTimeout), latency: .seconds(1))
        let text = metrics.render()
        for line in [
            #"herald_provider_sends_total{result="accepted",reason="",push_type="background",priority="5"} 1"#,
            #"herald_provider_sends_total{result="rejected",reason="Unregistered",push_type="alert",priority="10"} 1"#,
            #"herald_provider_sends_total{result="rejected",reason="other",push_type="other",priority="other"} 1"#,
            #"herald_provider_send_latency_seconds_count 4"#,
        ] {
            #expect(text.contains(line), "\(line) in \(text)")
        }
        #expect(text.contains(#"result="unanswered",reason="IdleTimeout""#), "\(text)")
    }

    @Test("requests are counted by route template; an unknown method or path does not make a series of its own")
    func requestLabels() {
        let metrics = ProviderMetrics()
        metrics.requestAnswered(
            route: "/v1/notifications/:id", method: .get, status: 200, duration: .milliseconds(2))
        for index in 0..<100 {
            metrics.requestAnswered(
                route: nil, method: HTTPRequest.Method("BREW\(index)")!, status: 404, duration: .milliseconds(1))
        }
        let text = metrics.render()
        #expect(
            text.contains(
                #"herald_provider_http_requests_total{route="/v1/notifications/:id",method="GET",status="200"} 1"#),
            "\(text)")
        #expect(
            text.contains(#"herald_provider_http_requests_total{route="unmatched",method="other",status="404"} 100"#),
            "\(text)")
    }

    @Test("the database's work is timed by the store method's name, failures counted apart")
    func databaseOperations() {
        let metrics = ProviderMetrics()
        metrics.operationFinished("lease", duration: .milliseconds(4), failed: false)
        metrics.operationFinished("record", duration: .milliseconds(9), failed: true)
        let text = metrics.render()
        #expect(text.contains(#"herald_provider_database_statement_duration_seconds_count{operation="lease"} 1"#))
        #expect(text.contains(#"herald_provider_database_errors_total{operation="record"} 1"#), "\(text)")
        #expect(!text.contains(#"herald_provider_database_errors_total{operation="lease"}"#))
    }
}
