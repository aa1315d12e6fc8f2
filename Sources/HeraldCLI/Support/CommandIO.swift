package import Foundation

/// Where commands read standard input and write their output: the process's streams, or a test's buffers.
package struct CommandIO: Sendable {
    /// Writes to standard output.
    package var write: @Sendable (String) -> Void
    /// Writes to standard error.
    package var writeError: @Sendable (String) -> Void
    /// Reads all of standard input.
    package var readInput: @Sendable () -> Data

    package init(
        write: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        readInput: @escaping @Sendable () -> Data
    ) {
        self.write = write
        self.writeError = writeError
        self.readInput = readInput
    }

    /// The process's own standard streams.
    package static let process = CommandIO(
        write: { FileHandle.standardOutput.write(Data($0.utf8)) },
        writeError: { FileHandle.standardError.write(Data($0.utf8)) },
        readInput: { FileHandle.standardInput.readDataToEndOfFile() }
    )

    /// The streams commands in this task use.
    @TaskLocal package static var current: CommandIO = .process
}
