import APNSCore
import Foundation
import Logging
import Synchronization
import Testing

@testable import HeraldCLI

/// What `herald help` prints is prose: a line continuation written `\\` in a Swift literal shows as a stray `\`.
@Suite("herald help: no stray backslashes")
struct HelpTextTests {
    @Test("no command's abstract, discussion or option help shows a backslash")
    func noStrayBackslash() throws {
        var texts: [(String, String)] = []
        func walk(_ command: JSONValue?, _ path: String) {
            for key in ["abstract", "discussion"] {
                if let text = command?[key]?.string { texts.append(("\(path) \(key)", text)) }
            }
            for argument in command?["arguments"]?.array ?? [] {
                if let text = argument["abstract"]?.string { texts.append(("\(path) option", text)) }
            }
            for sub in command?["subcommands"]?.array ?? [] {
                walk(sub, path + " " + (sub["commandName"]?.string ?? "?"))
            }
        }
        walk(CommandOptions.tree, "herald")
        #expect(texts.count > 50)
        for (place, text) in texts {
            #expect(!text.contains("\\"), "\(place): \(text)")
        }
    }

    @Test("IDs in the URLs the CLI calls stay as typed (an error quoting one shows app_23, not app%5F23)")
    func idsAsTyped() {
        #expect(DevicesCommand.escape("app_23ab-c.d~e") == "app_23ab-c.d~e")
        #expect(DevicesCommand.escape("a b/c?d&e") == "a%20b%2Fc%3Fd%26e")
        #expect(DevicesCommand.escape("ünï") == "%C3%BCn%C3%AF")
    }
}

/// A log line names its time zone: `2026-11-23T15:40:00.123Z notice label: message key=value`.
@Suite("Log lines")
struct CommandLogLineTests {
    @Test("each line starts with an ISO 8601 time in UTC, with milliseconds and its Z")
    func timeWithZone() {
        let written = Mutex("")
        let io = CommandIO(
            write: { _ in }, writeError: { text in written.withLock { $0 += text } }, readInput: { Data() })
        var logger = Logger(label: "herald-test") { CommandLogHandler(label: $0, io: io, logLevel: .info) }
        logger.logLevel = .info
        logger.notice("refused", metadata: ["status": "401"])
        let line = written.withLock { $0 }
        #expect(
            line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z notice herald-test: refused status=401\n/)
                != nil, "\(line)")
    }
}
