import ArgumentParser

/// Runs `herald` with arguments and returns the process exit status: 0 success, 1 a failure the command reports
/// (for example a payload APNs would reject), 2 bad usage.
package enum HeraldMain {
    /// The exit status for bad usage.
    package static let usageExitCode: Int32 = 2

    /// Parses and runs one command line.
    ///
    /// - Parameter arguments: the arguments after the program name.
    /// - Returns: the exit status.
    package static func run(arguments: [String]) async -> Int32 {
        let io = CommandIO.current
        do {
            let arguments = try CommandDefaults.current().apply(to: arguments)
            var command = try HeraldCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch let exit as ExitCode {
            return exit.rawValue
        } catch let failure as CommandFailure {
            io.writeError(TerminalText.safe(failure.description) + "\n")
            return 1
        } catch let usage as UsageError {
            io.writeError("error: \(usage.message)\n")
            return usageExitCode
        } catch {
            let code = HeraldCommand.exitCode(for: error)
            let message = HeraldCommand.fullMessage(for: error)
            if code == .success {
                io.write(message + "\n")
                return 0
            }
            io.writeError(TerminalText.safe(message) + "\n")
            return code == .validationFailure ? usageExitCode : code.rawValue
        }
    }
}

/// Bad usage found while running (an unreadable file, say): reported on stderr with exit status 2.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
