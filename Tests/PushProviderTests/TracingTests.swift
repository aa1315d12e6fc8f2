import Foundation
import HeraldSupport
import InMemoryTracing
import TestPacing
import Testing
import Tracing

@testable import PushProvider

@Suite("Traces: one push, one connected trace from the API request to each APNs request", .startsServers)
struct TracingTests {
    @Test(
        "the API request, its fan-out, the send of each chunk and each APNs request, each the child of the one before")
    func connectedTrace() async throws {
        let tracer = InMemoryTracer()
        try await ProviderHarness.with(configure: { $0.tracer = HeraldTracer(tracer) }) { harness in
            let tokens = try (0..<3).map { _ in try harness.gatewayToken() }
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["tokens": tokens], "content": ["body": "traced"]])
            #expect(status == 202)
            _ = try await harness.finished(try #require(created["id"].string))
            // The chunk's spans end before its answers are recorded, and the notification is done once they are.
            let spans = tracer.finishedSpans
            let api = try #require(spans.first { $0.operationName == "POST /v1/notifications" })
            let fanOut = try #require(spans.first { $0.operationName == "herald fan-out" })
            let sends = spans.filter { $0.operationName == "apns send" }
            let requests = spans.filter { $0.operationName == "apns request" }
            #expect(fanOut.parentSpanID == api.spanID && fanOut.traceID == api.traceID)
            #expect(fanOut.attributes["herald.deliveries"]?.toSpanAttribute() == 3)
            #expect(sends.allSatisfy { $0.parentSpanID == fanOut.spanID && $0.traceID == api.traceID })
            let accepted = sends.compactMap { span -> Int? in
                if case .int64(let count)? = span.attributes["apns.accepted"]?.toSpanAttribute() { return Int(count) }
                return nil
            }
            #expect(accepted.reduce(0, +) == 3, "\(sends.map(\.attributes))")
            for request in requests {
                #expect(sends.contains { $0.spanID == request.parentSpanID })
                #expect(request.attributes["apns.status"]?.toSpanAttribute() == 200)
                #expect(request.attributes["messaging.system"]?.toSpanAttribute() == "apns")
                #expect(request.attributes["messaging.message.id"] != nil)
            }
            #expect(api.attributes["http.route"]?.toSpanAttribute() == "/v1/notifications")
            // Nothing about the device: its token is no attribute of any span.
            for span in spans {
                for token in tokens { #expect(!"\(span.attributes)".contains(token)) }
            }
        }
    }
}
