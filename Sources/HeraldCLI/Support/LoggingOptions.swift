import ArgumentParser
import Logging

/// `--log-level`: how much the services a command runs say on standard error (also `HERALD_LOG_LEVEL` or a
/// profile's `log-level`, as every option).
struct LoggingOptions: ParsableArguments {
    @Option(
        name: .customLong("log-level"),
        help: "The least severe level the services write to standard error.")
    var level: Level = .info

    /// swift-log's levels, by their names.
    enum Level: String, ExpressibleByArgument, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// A logger that writes lines at ``level`` and above to the command's standard error. It does not touch
    /// swift-log's global bootstrap, so commands run in one process (as the tests run them) each keep their own.
    func logger(_ label: String, metadataProvider: Logger.MetadataProvider? = nil) -> Logger {
        let io = CommandIO.current
        let level = Logger.Level(rawValue: level.rawValue) ?? .info
        return Logger(label: label) {
            CommandLogHandler(label: $0, io: io, logLevel: level, metadataProvider: metadataProvider)
        }
    }
}
