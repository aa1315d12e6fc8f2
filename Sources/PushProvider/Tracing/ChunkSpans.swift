import APNSClient
import APNSCore
import HeraldSupport
import ProviderStorage
import Synchronization
import Tracing

/// The spans of one chunk's traced notifications: one span per notification (`apns send`, its deliveries in the
/// chunk and how APNs answered them) in the trace the notification was created in, and under it one span per APNs
/// request (`apns request`: apns-id, push type, priority, status, reason) when the notification has at most
/// ``requestSpanLimit`` deliveries in the chunk. A broadcast of a million is one span per chunk, not a million spans.
/// Attributes follow OpenTelemetry's messaging conventions (`messaging.*`) where they fit, and `apns.*` for the rest.
final class ChunkSpans: Sendable {
    /// The most deliveries of one notification in a chunk that get a span each.
    static let requestSpanLimit = 16

    private struct Sends {
        var span: any Span
        var accepted = 0
        var rejected = 0
        var unreached = 0
    }

    private let tracer: HeraldTracer
    /// By notification id.
    private let sends: Mutex<[String: Sends]>
    /// By position in the batch.
    private let requests: Mutex<[Int: any Span]>

    /// Spans for the deliveries at `positions` of `prepared` whose notifications are traced; `nil` when none is.
    init?(_ prepared: PreparedBatch, _ positions: Range<Int>, tracer: HeraldTracer, topic: String) {
        guard !prepared.traceContexts.isEmpty else { return nil }
        var byNotification: [String: [Int]] = [:]
        for position in positions {
            let id = prepared.deliveries[position].notificationID
            if prepared.traceContexts[id] != nil { byNotification[id, default: []].append(position) }
        }
        guard !byNotification.isEmpty else { return nil }
        var sends: [String: Sends] = [:]
        var requests: [Int: any Span] = [:]
        for (id, members) in byNotification {
            let span = tracer.startSpan(
                "apns send", parent: tracer.context(stored: prepared.traceContexts[id]!), kind: .producer)
            span.attributes["messaging.system"] = "apns"
            span.attributes["messaging.operation.type"] = "send"
            span.attributes["messaging.destination.name"] = topic
            span.attributes["messaging.batch.message_count"] = members.count
            span.attributes["herald.notification.id"] = id
            sends[id] = Sends(span: span)
            guard members.count <= Self.requestSpanLimit else { continue }
            for position in members {
                let request = tracer.startSpan("apns request", parent: span.context, kind: .client)
                Self.describe(request, prepared.notifications[position], topic: topic)
                requests[position] = request
            }
        }
        self.tracer = tracer
        self.sends = Mutex(sends)
        self.requests = Mutex(requests)
    }

    /// The chunk's notifications with the `traceparent` of each one's span (its request's, or its send's), for the
    /// client to send to a local APNs (it never sends one to Apple's).
    func traced(_ chunk: ArraySlice<APNSNotification>, _ prepared: PreparedBatch) -> [APNSNotification] {
        let (requests, sends) = (self.requests.withLock { $0 }, self.sends.withLock { $0.mapValues(\.span) })
        return chunk.indices.map { position in
            var notification = chunk[position]
            let span = requests[position] ?? sends[prepared.deliveries[position].notificationID]
            if let span { notification.traceParent = tracer.traceParent(of: span.context) }
            return notification
        }
    }

    /// What a request span says of its notification before the answer.
    private static func describe(_ span: any Span, _ notification: APNSNotification, topic: String) {
        span.attributes["messaging.system"] = "apns"
        span.attributes["messaging.operation.type"] = "send"
        span.attributes["messaging.destination.name"] = topic
        if let id = notification.requestID?.rawValue { span.attributes["messaging.message.id"] = id }
        let (pushType, priority) = ProviderMetrics.labels(of: notification)
        span.attributes["apns.push_type"] = pushType
        span.attributes["apns.priority"] = priority
    }

    /// APNs' answer to the delivery at `position` of notification `notificationID`.
    func answered(_ result: APNSResult, at position: Int, notificationID: String) {
        let request = requests.withLock { $0.removeValue(forKey: position) }
        switch result {
        case .accepted:
            sends.withLock { $0[notificationID]?.accepted += 1 }
            request?.attributes["apns.status"] = 200
        case .rejected(let rejection):
            let unreached = rejection.reason == .connectionFailed
            sends.withLock {
                if unreached { $0[notificationID]?.unreached += 1 } else { $0[notificationID]?.rejected += 1 }
            }
            if let status = rejection.status { request?.attributes["apns.status"] = status }
            request?.attributes["apns.reason"] = rejection.reason.rawValue
            request?.setStatus(SpanStatus(code: .error, message: rejection.reason.rawValue))
        }
        request?.end()
    }

    /// Ends every span: the notifications' with their counts, and any request left without an answer.
    func end() {
        for request in requests.withLock({ $0.values }) { request.end() }
        for send in sends.withLock({ Array($0.values) }) {
            send.span.attributes["apns.accepted"] = send.accepted
            send.span.attributes["apns.rejected"] = send.rejected
            send.span.attributes["apns.unreached"] = send.unreached
            send.span.end()
        }
    }
}
