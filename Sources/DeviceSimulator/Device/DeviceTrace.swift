import Courier
import Foundation
import HeraldSupport
import Tracing

/// A push's spans on a simulated device, in the trace the gateway handed on (`traceparent` in the courier's
/// message): `device receive` for the whole pipeline, with `service extension` and `display` under it.
struct DeviceTrace {
    private let tracer: HeraldTracer
    private let span: any Span

    /// `nil` when traces are off or the push carries none.
    init?(_ notification: AcceptedNotification, tracer: HeraldTracer?) {
        guard let tracer, let parent = notification.traceParent else { return nil }
        self.tracer = tracer
        span = tracer.startSpan(
            "device receive", parent: tracer.context(headers: ["traceparent": parent]), kind: .consumer)
        span.attributes["messaging.system"] = "apns"
        span.attributes["messaging.operation.type"] = "receive"
        span.attributes["messaging.message.id"] = notification.apnsID.uuidString.lowercased()
        span.attributes["messaging.destination.name"] = notification.topic
    }

    /// A step of the pipeline, under the receipt's span; the caller ends it.
    func child(_ name: String) -> any Span {
        tracer.startSpan(name, parent: span.context)
    }

    func end() {
        span.end()
    }
}
