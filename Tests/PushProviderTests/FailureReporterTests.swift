import Logging
import ProviderStorage
import Synchronization
import Testing

@testable import PushProvider

@Suite("Failures the provider goes on from are logged with metadata and counted")
struct FailureReporterTests {
    @Test("a reported failure is one error line with its operation and error, and one count in /metrics")
    func reported() {
        let lines = CapturedLines()
        let logger = Logger(label: "test") { _ in lines.handler() }
        let metrics = ProviderMetrics()
        let failures = FailureReporter(logger: logger, metrics: metrics)
        failures.report(
            .record, "cannot record APNs' answers", error: ProviderError.storage("disk full"), metadata: ["count": "3"])
        failures.report(.record, "cannot record APNs' answers")
        let captured = lines.all
        #expect(captured.count == 2)
        #expect(captured.first?.level == .error)
        #expect(captured.first?.message == "cannot record APNs' answers")
        #expect(captured.first?.metadata["operation"] == "record")
        #expect(captured.first?.metadata["count"] == "3")
        #expect(captured.first?.metadata["error"]?.description.contains("disk full") == true)
        #expect(
            metrics.render().contains(#"herald_provider_failures_total{operation="record"} 2"#), "\(metrics.render())")
    }
}

/// A log handler that keeps every line.
final class CapturedLines: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let lines = Mutex<[Line]>([])

    var all: [Line] { lines.withLock { $0 } }

    func handler() -> some LogHandler { Handler(sink: self) }

    fileprivate func append(_ line: Line) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let sink: CapturedLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            sink.append(
                Line(
                    level: event.level, message: event.message.description,
                    metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}
