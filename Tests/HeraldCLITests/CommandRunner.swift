import Foundation
import Synchronization

@testable import HeraldCLI

/// What one `herald` run printed and returned.
struct CommandResult {
    var status: Int32
    var output: String
    var errorOutput: String
}

/// Runs `herald` in-process with captured streams, as a user would run it in a shell.
func runHerald(_ arguments: [String], input: String = "") async -> CommandResult {
    let output = Mutex("")
    let errorOutput = Mutex("")
    let io = CommandIO(
        write: { text in output.withLock { $0 += text } },
        writeError: { text in errorOutput.withLock { $0 += text } },
        readInput: { Data(input.utf8) }
    )
    let status = await CommandIO.$current.withValue(io) { await HeraldMain.run(arguments: arguments) }
    return CommandResult(
        status: status,
        output: output.withLock { $0 },
        errorOutput: errorOutput.withLock { $0 }
    )
}

/// The path of a fixture file beside the tests.
func fixture(_ name: String) -> String {
    Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!.path
}
