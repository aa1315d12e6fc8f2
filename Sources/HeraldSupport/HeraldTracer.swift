import Foundation
package import Logging
package import Tracing

/// The tracer Herald's spans go to (the provider's, the local APNs', a simulated device's): any `Tracer` (swift-otel's
/// exporting over OTLP, or a test's in-memory one) behind one concrete type, so they hold it without generics. No tracer at all (`nil` where
/// one is held) is traces off: nothing is created.
package struct HeraldTracer: Sendable {
    private let start: @Sendable (String, InstrumentationContext, SpanKind) -> any Span
    private let extract: @Sendable ([String: String]) -> InstrumentationContext
    private let inject: @Sendable (InstrumentationContext) -> [String: String]

    /// Spans go to `tracer`.
    package init<T: Tracer>(_ tracer: T) {
        start = { name, context, kind in tracer.startSpan(name, context: context, ofKind: kind) }
        extract = { headers in
            var context = InstrumentationContext.topLevel
            tracer.extract(headers, into: &context, using: TraceCarrier())
            return context
        }
        inject = { context in
            var headers: [String: String] = [:]
            tracer.inject(context, into: &headers, using: TraceCarrier())
            return headers
        }
    }

    /// Starts a span named `name` under `parent` (its trace context; `.topLevel` starts a new trace).
    package func startSpan(_ name: String, parent: InstrumentationContext, kind: SpanKind = .internal) -> any Span {
        start(name, parent, kind)
    }

    /// The context a request's `traceparent` and `tracestate` headers (lower-case names) carry, or a new trace.
    package func context(headers: [String: String]) -> InstrumentationContext {
        extract(headers)
    }

    /// A span's context as text to keep with what it made (``TraceCarrier/encode(_:)``), `nil` when it carries none.
    package func storedContext(of context: InstrumentationContext) -> String? {
        let headers = inject(context)
        return headers.isEmpty ? nil : TraceCarrier.encode(headers)
    }

    /// What a log line written while a span is active says of it: `trace_id` and `span_id` (from its W3C
    /// `traceparent`), so a line is found beside its trace.
    package var logMetadata: Logger.MetadataProvider {
        let inject = self.inject
        return Logger.MetadataProvider {
            guard let context = InstrumentationContext.current,
                let parent = inject(context)["traceparent"]?.split(separator: "-"), parent.count == 4
            else { return [:] }
            return ["trace_id": "\(parent[1])", "span_id": "\(parent[2])"]
        }
    }

    /// The W3C `traceparent` of `context`, to send to a local APNs or a device; `nil` when it carries none.
    package func traceParent(of context: InstrumentationContext) -> String? {
        inject(context)["traceparent"]
    }

    /// The context kept by ``storedContext(of:)``.
    package func context(stored: String) -> InstrumentationContext {
        extract(TraceCarrier.decode(stored))
    }
}

/// Trace context as header-like pairs (`traceparent`, `tracestate`): how a tracer reads and writes it, and how it is
/// kept in a notification's row, one `name: value` line each.
package struct TraceCarrier: Extractor, Injector {
    package typealias Carrier = [String: String]

    package init() {}

    package func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key.lowercased()]
    }

    package func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key.lowercased()] = value
    }

    /// The pairs as lines, sorted by name.
    package static func encode(_ headers: [String: String]) -> String {
        headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
    }

    /// The pairs of ``encode(_:)``'s lines.
    package static func decode(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
        return headers
    }
}
