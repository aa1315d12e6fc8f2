import APNSCore
import Foundation
import Logging
import PushProvider
import TestPacing
import Testing

@testable import HeraldCLI

/// Every command that talks to a provider finds it the same way: `--provider`/`--provider-token-file`, else
/// `HERALD_PROVIDER`/`HERALD_PROVIDER_TOKEN_FILE`, else the profile; `herald status` included.
@Suite("The CLI finds its provider the same way in every command")
struct ProviderOptionsTests {
    /// Every command path whose options include `--provider`, from the command tree.
    static func providerCommands() throws -> [[String]] {
        let tree = try #require(CommandOptions.tree)
        var paths: [[String]] = []
        func walk(_ command: JSONValue?, _ path: [String]) {
            let names = (command?["arguments"]?.array ?? []).flatMap { $0["names"]?.array ?? [] }
            if names.contains(where: { $0["name"]?.string == "provider" }) { paths.append(path) }
            for sub in command?["subcommands"]?.array ?? [] {
                if let name = sub["commandName"]?.string { walk(sub, path + [name]) }
            }
        }
        walk(tree, [])
        return paths
    }

    @Test("each such command reads the flag first, then the environment, then the profile")
    func everyCommand() throws {
        let paths = try Self.providerCommands()
        for expected in [["status"], ["devices", "list"], ["apps", "create"], ["log"], ["doctor"], ["why"]] {
            #expect(paths.contains(expected), "\(expected) takes --provider: \(paths)")
        }
        let environment = CommandDefaults(
            environment: ["HERALD_PROVIDER": "http://env:1", "HERALD_PROVIDER_TOKEN_FILE": "/env/token"],
            profiles: [:], defaultProfile: nil, source: nil)
        let profile = CommandDefaults(
            environment: [:],
            profiles: ["far": ["provider": "http://profile:2", "provider-token-file": "/profile/token"]],
            defaultProfile: "far", source: nil)
        for path in paths {
            let fromEnvironment = try environment.apply(to: path)
            #expect(fromEnvironment.contains("http://env:1") && fromEnvironment.contains("/env/token"), "\(path)")
            let fromProfile = try profile.apply(to: path)
            #expect(fromProfile.contains("http://profile:2") && fromProfile.contains("/profile/token"), "\(path)")
            let fromFlag = try environment.apply(to: path + ["--provider", "http://flag:3"])
            #expect(fromFlag.contains("http://flag:3") && !fromFlag.contains("http://env:1"), "\(path)")
        }
        // A group named alone runs its default subcommand, and gets that subcommand's defaults.
        #expect(try environment.apply(to: ["devices", "--limit", "1"]).contains("http://env:1"))
    }

    @Test("herald status --provider shows a provider that runs from another folder", .startsServers)
    func statusElsewhere() async throws {
        try await RunningProvider.with { running in
            let (provider, base) = (running.provider, running.base)
            let status = await runHerald(
                ["status", "--provider", base, "--provider-token-file", provider.adminTokenPath.path])
            #expect(status.status == 0, "\(status.errorOutput)")
            #expect(status.output.contains("provider     \(base)/v1   queue depth 0"), "\(status.output)")
        }
    }
}
