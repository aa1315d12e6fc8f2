import APNSCore
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
}
