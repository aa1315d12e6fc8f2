import APNSCore
import ArgumentParser
import Foundation

/// `herald payload lint`: reports what APNs would reject and what iOS would mishandle in a payload and its headers.
struct PayloadLintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a payload (JSON or .apns) and its headers as APNs and iOS would.",
        discussion: """
            Errors are what APNs rejects, with the reason it answers; warnings are what APNs accepts but iOS \
            ignores or mishandles. The size is measured on the compact JSON that herald sends.
            Exit status: 0 clean or warnings only, 1 errors (including JSON that does not parse), 2 bad usage.
            """
    )

    @Argument(help: "The payload file (JSON or .apns), or - for standard input.")
    var file: String = "-"

    @OptionGroup(title: "APNs headers")
    var headers: APNSHeaderOptions

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    func run() async throws {
        let io = CommandIO.current
        let source = try PayloadSource(path: file, io: io)
        if case .failure(let error) = source.payload, error.code == .invalidSimulatorFile {
            io.writeError("\(source.name): error: \(error.message)\n")
            throw ExitCode(1)
        }
        var given = headers.values
        given.topic = given.topic(defaultBundleID: source.targetBundleID)
        let request = APNSLinter.Request(body: source.body, headers: given)
        let report = APNSLinter.lint(request)
        let rendering = PayloadLintRendering(name: source.name, report: report)
        io.write(json ? rendering.json() : rendering.text())
        if !report.isAccepted { throw ExitCode(1) }
    }
}
