import APNSGateway
import Foundation
import TestPacing
import Testing

@testable import HeraldCLI

@Suite("Everyday commands: log, devices, status; defaults from the environment and profiles", .startsServers)
struct EverydayCommandTests {
    @Test("herald log: the latest notifications one line per event; --apns-id shows one")
    func log() async throws {
        try await SendGateway.with { gateway in
            let sent = await runHerald(gateway.arguments(["--token", gateway.token, "--body", "x", "--json"]))
            #expect(sent.status == 0, "\(sent.errorOutput)")
            let bad = String(repeating: "ab", count: 32)
            _ = await runHerald(gateway.arguments(["--token", bad, "--body", "x"]))
            let tokenFile = gateway.server.configuration.dataDirectory.appendingPathComponent("admin-token").path
            let where_ = ["--gateway", gateway.url, "--gateway-token-file", tokenFile, "--ca-file", gateway.caFile]
            let result = await runHerald(["log"] + where_)
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output.contains("received"), "\(result.output)")
            #expect(result.output.contains("stored"), "the device is offline: \(result.output)")
            #expect(result.output.contains("rejected: BadDeviceToken"), "\(result.output)")
            let apnsID = try #require(
                result.output.split(separator: "\n").first?.split(separator: " ").dropFirst().first)
            let one = await runHerald(
                ["log", "--apns-id", String(apnsID)] + where_ + ["--provider", "http://127.0.0.1:1"])
            #expect(one.output.split(separator: "\n").allSatisfy { $0.contains(apnsID) }, "\(one.output)")
            let missing = await runHerald(["log", "--apns-id", UUID().uuidString] + where_)
            #expect(missing.status == 1)
            #expect(missing.errorOutput.contains("the delivery log has no such notification"), "\(missing.errorOutput)")
        }
    }

    @Test("herald send lists the apns-id of every refused push, and herald why for one gives the fix send gave")
    func refusedIDsAndWhy() async throws {
        try await SendGateway.with { gateway in
            let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).txt")
            defer { try? FileManager.default.removeItem(at: tokenFile) }
            let bad = (1...3).map { String(repeating: String(format: "%02x", $0), count: 32) }
            try bad.joined(separator: "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
            let sent = await runHerald(gateway.arguments(["--tokens", tokenFile.path, "--body", "x"]))
            #expect(sent.status == 1)
            let lines = sent.output.split(separator: "\n").map(String.init)
            let idLine = try #require(lines.first { $0.contains("apns-ids: ") }, "\(sent.output)")
            let ids = idLine.components(separatedBy: "apns-ids: ")[1].components(separatedBy: ", ")
            #expect(ids.count == 3, "\(idLine)")
            let next = try #require(lines.first { $0.contains("next: ") }, "\(sent.output)")
            let fix = next.components(separatedBy: "next: ")[1]
            let adminToken = gateway.server.configuration.dataDirectory.appendingPathComponent("admin-token").path
            let why = await runHerald(
                [
                    "why", ids[1], "--gateway", gateway.url, "--gateway-token-file", adminToken, "--ca-file",
                    gateway.caFile,
                ])
            #expect(why.status == 0, "\(why.errorOutput)")
            #expect(why.output.contains("BadDeviceToken"), "\(why.output)")
            #expect(why.output.contains(fix), "send said \(fix); why said \(why.output)")
        }
    }

    @Test("herald devices and log with nothing running say what to start")
    func nothingRunning() async throws {
        let result = await runHerald(["devices", "--provider-token-file", "/nonexistent"])
        #expect(result.status != 0)
        let log = await runHerald(["log", "--gateway", "https://127.0.0.1:1", "--gateway-token-file", "/nonexistent"])
        #expect(log.status == 2)
        #expect(log.errorOutput.contains("--gateway-token-file: cannot read /nonexistent"), "\(log.errorOutput)")
    }

    @Test("the command line wins, then the environment, then the profile; settings a command lacks are ignored")
    func defaults() throws {
        let defaults = CommandDefaults(
            environment: ["HERALD_TOPIC": "com.from.env", "HERALD_JSON": "1", "HERALD_TEST_POSTGRES": "x"],
            profiles: ["local": ["url": "https://127.0.0.1:2197", "topic": "com.from.profile", "limit": "3"]],
            defaultProfile: nil, source: nil)
        let send = try defaults.apply(to: ["send", "--profile", "local", "--token", "ab", "--url", "https://x:1"])
        #expect(send.filter { $0 == "--url" }.count == 1, "the command line's --url stays alone: \(send)")
        #expect(send.contains("https://x:1"))
        #expect(send.contains("com.from.env"), "the environment wins over the profile: \(send)")
        #expect(send.contains("--json"), "a flag from HERALD_JSON=1: \(send)")
        #expect(!send.contains("--limit"), "send has no --limit: \(send)")
        #expect(!send.contains("--profile"))
        let log = try defaults.apply(to: ["log", "--profile=local"])
        #expect(log == ["log", "--limit", "3"], "\(log)")
        #expect(throws: UsageError.self) { try defaults.apply(to: ["send", "--profile", "nope"]) }
    }

    @Test("a profile key COMMAND.OPTION is for that command only: herald channels goes to the management port")
    func commandScopedDefaults() throws {
        let defaults = CommandDefaults(
            environment: [:],
            profiles: [
                "up": [
                    "url": "https://127.0.0.1:2197", "channels.url": "https://127.0.0.1:2195", "topic": "com.example",
                ]
            ],
            defaultProfile: nil, source: nil)
        let channels = try defaults.apply(to: ["channels", "list", "--profile", "up"])
        #expect(
            channels.contains("https://127.0.0.1:2195") && !channels.contains("https://127.0.0.1:2197"), "\(channels)")
        let send = try defaults.apply(to: ["send", "--profile", "up", "--token", "ab"])
        #expect(send.contains("https://127.0.0.1:2197") && !send.contains("https://127.0.0.1:2195"), "\(send)")
        let given = try defaults.apply(to: ["channels", "list", "--profile", "up", "--url", "https://x:1"])
        #expect(given.filter { $0 == "--url" }.count == 1, "the command line still wins: \(given)")
    }

    @Test("herald status with nothing running says how to start")
    func status() async {
        let result = await runHerald(["status"])
        #expect(result.status == 0)
        #expect(result.output.contains("herald up") || result.output.contains("in ./.herald"), "\(result.output)")
    }
}
