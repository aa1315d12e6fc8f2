import APNSClient
import APNSCore
import HeraldSupport
import ProviderStorage
import Synchronization
import Tracing

/// The spans of one chunk's traced notifications: one span per notification (`apns send`, its deliveries in the
/// chunk and how APNs answered them) in the trace the notification was created in, and under it one span per APNs
/// request (`apns request`: apns-id, push type, priority, status, reason) when the notification has at most
/// ``requestSpanLimit`` deliveries in the chunk. A broadcast of a million is one span per chunk, not a million spans,
/// and an answer costs a few atomic additions. Attributes follow OpenTelemetry's messaging conventions
/// (`messaging.*`) where they fit, and `apns.*` for the rest.
final class ChunkSpans: Sendable {
    /// The most deliveries of one notification in a chunk that get a span each.
    static let requestSpanLimit = 16

    /// One notification's span in the chunk and its answers so far.
    private final class Sends: Sendable {
        let span: any Span
        let accepted = Atomic(0)
        let rejected = Atomic(0)
        let unreached = Atomic(0)

        init(span: any Span) { self.span = span }
    }

    private let tracer: HeraldTracer
    /// By notification id; fixed once made, so an answer reads it without a lock.
    private let sends: [String: Sends]
    /// By position in the batch; empty for a chunk of more than ``requestSpanLimit`` of each notification.
    private let requests: Mutex<[Int: any Span]>
    private let hasRequestSpans: Bool

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
        self.sends = sends
        hasRequestSpans = !requests.isEmpty
        self.requests = Mutex(requests)
    }

    /// The chunk's notifications with each request span's `traceparent`, for the client to send to a local APNs
    /// (it never sends one to Apple's); the others keep their fan-out's (``PreparedBatch``). `nil` when the chunk
    /// has no request span: it is sent as it is.
    func traced(_ chunk: ArraySlice<APNSNotification>) -> [APNSNotification]? {
        guard hasRequestSpans else { return nil }
        let parents = requests.withLock { $0 }.compactMapValues { tracer.traceParent(of: $0.context) }
        return chunk.indices.map { position in
            var notification = chunk[position]
            if let parent = parents[position] { notification.traceParent = parent }
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
        guard let sends = sends[notificationID] else { return }
        let request = hasRequestSpans ? requests.withLock { $0.removeValue(forKey: position) } : nil
        switch result {
        case .accepted:
            sends.accepted.add(1, ordering: .relaxed)
            request?.attributes["apns.status"] = 200
        case .rejected(let rejection):
            if rejection.reason == .connectionFailed {
                sends.unreached.add(1, ordering: .relaxed)
            } else {
                sends.rejected.add(1, ordering: .relaxed)
            }
            if let status = rejection.status { request?.attributes["apns.status"] = status }
            request?.attributes["apns.reason"] = rejection.reason.rawValue
            request?.setStatus(SpanStatus(code: .error, message: rejection.reason.rawValue))
        }
        request?.end()
    }

    /// Ends every span: the notifications' with their counts, and any request left without an answer.
    func end() {
        if hasRequestSpans {
            for request in requests.withLock({ $0.values }) { request.end() }
        }
        for send in sends.values {
            send.span.attributes["apns.accepted"] = send.accepted.load(ordering: .relaxed)
            send.span.attributes["apns.rejected"] = send.rejected.load(ordering: .relaxed)
            send.span.attributes["apns.unreached"] = send.unreached.load(ordering: .relaxed)
            send.span.end()
        }
    }
}
