import Foundation
import HeraldCLI
import Testing

/// A seed payload and the verdict a user should see for it.
struct SeedVerdict: CustomTestStringConvertible, Sendable {
    var file: String
    var status: Int32
    var rules: [String]
    var testDescription: String { file }
}

@Suite("herald payload lint")
struct PayloadLintCommandTests {
    static let seeds: [SeedVerdict] = [
        SeedVerdict(file: "000-ritl-rich-payload-as-written.json", status: 1, rules: ["payload-not-json-object"]),
        SeedVerdict(file: "000-ritl-rich-payload.json", status: 0, rules: ["custom-key-in-aps"]),
        SeedVerdict(file: "000-ritl-demo-payload.json", status: 0, rules: ["badge-not-a-number"]),
        SeedVerdict(file: "000-pushmebaby-payload.json", status: 0, rules: ["badge-not-a-number"]),
        SeedVerdict(file: "000-ritl-local-content-as-push.json", status: 0, rules: []),
        SeedVerdict(file: "001-service-extension-trigger.json", status: 0, rules: []),
        SeedVerdict(file: "001-content-extension-category.json", status: 0, rules: ["badge-not-a-number"]),
        SeedVerdict(file: "002-attachment-download.json", status: 0, rules: []),
        SeedVerdict(file: "002-attachment-download.apns", status: 0, rules: []),
        SeedVerdict(file: "003-notification-config.json", status: 0, rules: ["missing-aps"]),
        SeedVerdict(file: "003-time-local-as-push.json", status: 0, rules: []),
        SeedVerdict(file: "003-gif-download-push.json", status: 0, rules: []),
    ]

    @Test("every seed payload gets the verdict a user should see", arguments: seeds)
    func seedVerdict(_ seed: SeedVerdict) async throws {
        let result = await runHerald(["payload", "lint", "--json", fixture("seeds/\(seed.file)")])
        #expect(result.status == seed.status)
        let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let problems = (report?["errors"] as? [[String: Any]] ?? []) + (report?["warnings"] as? [[String: Any]] ?? [])
        #expect(problems.compactMap { $0["rule"] as? String } == seed.rules)
        #expect(report?["accepted"] as? Bool == (seed.status == 0))
    }

    @Test("a person sees each problem on its own line, then a summary")
    func textOutput() async {
        let result = await runHerald(["payload", "lint", fixture("seeds/000-ritl-demo-payload.json")])
        let lines = result.output.split(separator: "\n")
        #expect(result.status == 0)
        #expect(lines.count == 2)
        #expect(
            lines[0].hasSuffix(
                #"warning: aps.badge: badge is the string "1"; iOS ignores a badge that is not a number: write 1 without quotes"#
            ))
        #expect(lines[1].hasSuffix("0 errors, 1 warning (75 bytes of 4096, push type alert (inferred))"))
    }

    @Test("a clean payload from standard input says ok")
    func standardInput() async {
        let result = await runHerald(["payload", "lint"], input: #"{"aps":{"alert":"Hi","badge":1}}"#)
        #expect(result.status == 0)
        #expect(result.output == "<stdin>: ok (32 bytes of 4096, push type alert (inferred))\n")
    }

    @Test("JSON that does not parse is an error with where it broke, exit 1")
    func invalidJSON() async {
        let result = await runHerald(["payload", "lint", "-"], input: "{\"aps\": {\"alert\": \"x\",}}")
        #expect(result.status == 1)
        #expect(
            result.output.contains(
                "error: the payload is not valid JSON: line 1, column 23: a trailing comma is not allowed before '}' [400 PayloadEmpty]"
            ))
    }

    @Test("headers are checked too: a bad priority is BadPriority, exit 1")
    func headerErrors() async throws {
        let result = await runHerald(
            ["payload", "lint", "--priority", "7", "--json", "-"], input: #"{"aps":{"alert":"x"}}"#)
        #expect(result.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let error = (report?["errors"] as? [[String: Any]])?.first
        #expect(error?["reason"] as? String == "BadPriority")
        #expect(error?["status"] as? Int == 400)
        #expect(error?["location"] as? String == "apns-priority")
    }

    @Test("an oversized payload is PayloadTooLarge with its size, exit 1")
    func tooLarge() async {
        let body = #"{"aps":{"alert":""# + String(repeating: "a", count: 5000) + #""}}"#
        let result = await runHerald(["payload", "lint", "-"], input: body)
        #expect(result.status == 1)
        #expect(
            result.output.contains(
                "the payload is 5020 bytes; APNs accepts at most 4096 for push type alert [413 PayloadTooLarge]"))
        #expect(
            await runHerald(["payload", "lint", "--push-type", "voip", "--topic", "a.b.voip", "-"], input: body).status
                == 0)
    }

    @Test("a .apns file's target bundle is its topic, so a voip push without the suffix is caught")
    func simulatorFileTopic() async {
        let result = await runHerald([
            "payload", "lint", "--push-type", "voip", fixture("seeds/002-attachment-download.apns"),
        ])
        #expect(result.status == 0)
        let wrong = await runHerald(
            ["payload", "lint", "--push-type", "voip", "--topic", "com.example.ritl", "-"], input: "{}")
        #expect(wrong.status == 1)
        #expect(wrong.output.contains("DeviceTokenNotForTopic"))
    }

    @Test(
        "bad usage exits 2 with a message on stderr",
        arguments: [
            ["payload", "lint", "--bogus"], ["payload", "lint", "/no/such/file.json"], ["payload", "lint", "a", "b"],
            ["nonsense"],
        ])
    func badUsage(arguments: [String]) async {
        let result = await runHerald(arguments)
        #expect(result.status == 2)
        #expect(!result.errorOutput.isEmpty)
        #expect(result.output.isEmpty)
    }

    @Test("help is printed on stdout with exit 0")
    func help() async {
        let result = await runHerald(["payload", "lint", "--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("--push-type"))
    }

    @Test("--version prints herald's version on stdout with exit 0")
    func version() async {
        let result = await runHerald(["--version"])
        #expect(result.status == 0)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "herald \(HeraldCommand.version)")
    }
}
