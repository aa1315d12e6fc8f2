import Foundation
import Logging

/// Writes log lines to the command's standard error (``CommandIO``), so a test that runs a command in-process reads
/// its logs as a person reads them: `2026-11-23T15:40:00.123Z notice herald-gateway: refused reason=... status=401`.
struct CommandLogHandler: LogHandler {
    let label: String
    let io: CommandIO
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    /// Metadata read when a line is written: the active span's `trace_id` and `span_id` when traces are on.
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(metadataProvider?.get() ?? [:]) { $1 }.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = Date.now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        io.writeError("\(time) \(event.level) \(label): \(event.message)\(fields.isEmpty ? "" : " " + fields)\n")
    }
}
