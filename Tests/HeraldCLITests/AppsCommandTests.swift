import APNSGateway
import Crypto
import Foundation
import GatewayTestSupport
import Logging
import PushProvider
import TestPacing
import Testing

@testable import HeraldCLI

/// `herald apps` against a real provider: create from a `.p8` file (no JSON escaping by hand), list, show, update,
/// pause, resume and delete.
@Suite("herald apps: an app's whole life from the command line", .startsServers)
struct AppsCommandTests {
    @Test(
        "create prints the keys once; list, show, update, pause, resume; a bad retention names the field; delete needs --yes"
    )
    func lifecycle() async throws {
        try await RunningProvider.with { running in
            let folder = running.folder
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let keyFile = folder.appendingPathComponent("AuthKey_ABC123DEFG.p8")
            try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: keyFile)
            let where_ = running.flags

            let created = await runHerald(
                [
                    "apps", "create", "--bundle-id", "com.example.cli", "--auth-key",
                    "DEF123GHIJ:ABC123DEFG:\(keyFile.path)",
                    "--no-check",
                ] + where_)
            #expect(created.status == 0, "\(created.errorOutput)")
            #expect(created.output.contains("API key (secret; shown once"), "\(created.output)")
            #expect(created.output.contains("publishable key (for the app, HeraldKit): pk_"), "\(created.output)")
            let id = try #require(
                created.output.split(separator: " ").dropFirst().first.map(String.init), "\(created.output)")

            let listed = await runHerald(["apps", "list"] + where_)
            #expect(listed.output.contains("\(id)  com.example.cli  development  token"), "\(listed.output)")
            let paused = await runHerald(["apps", "pause", id] + where_)
            #expect(paused.status == 0, "\(paused.errorOutput)")
            #expect(await runHerald(["apps", "list"] + where_).output.contains("PAUSED since"))
            let bad = await runHerald(["apps", "update", id, "--retention-days=-1"] + where_)
            #expect(bad.status != 0)
            #expect(bad.errorOutput.contains("retention.deliveries: is -1 days; give 1 to 3650"), "\(bad.errorOutput)")
            let updated = await runHerald(
                ["apps", "update", id, "--retention-days", "14", "--response-retention-days", "90", "--name", "CLI"]
                    + where_)
            #expect(updated.status == 0, "\(updated.errorOutput)")
            let shown = await runHerald(["apps", "show", id, "--json"] + where_)
            // Each kind is its own flag: --retention-days does not set the responses' days.
            #expect(shown.output.contains(#""retention":{"deliveries":14,"responses":90}"#), "\(shown.output)")
            #expect(shown.output.contains(#""name":"CLI""#), "\(shown.output)")
            #expect(!shown.output.contains("PRIVATE KEY"), "the key is never shown: \(shown.output)")
            let resumed = await runHerald(["apps", "resume", id] + where_)
            #expect(resumed.status == 0, "\(resumed.errorOutput)")
            #expect(!(await runHerald(["apps", "list"] + where_).output.contains("PAUSED")))

            // Keys: one restricted to sending, listed with its scope, deleted; the webhook batch in show.
            let batched = await runHerald(["apps", "update", id, "--webhook-batch", "20"] + where_)
            #expect(batched.status == 0, "\(batched.errorOutput)")
            #expect(await runHerald(["apps", "show", id] + where_).output.contains("(20 a POST)"))
            // Quiet hours and frequency caps: set, shown, checked by the provider, removed.
            let rules = await runHerald(
                [
                    "apps", "update", id, "--quiet-hours", "22:00-08:00/drop", "--frequency-cap", "marketing:3/1d",
                    "--frequency-cap", "news:1/3600:device",
                ] + where_)
            #expect(rules.status == 0, "\(rules.errorOutput)")
            let withRules = await runHerald(["apps", "show", id] + where_).output
            #expect(withRules.contains("quiet hours 22:00-08:00 (drop)"), "\(withRules)")
            #expect(
                withRules.contains("marketing 3 per 86400 s per user, news 1 per 3600 s per device"), "\(withRules)")
            let zeroCap = await runHerald(["apps", "update", id, "--frequency-cap", "marketing:0/1d"] + where_)
            #expect(zeroCap.status != 0 && zeroCap.errorOutput.contains("frequencyCaps[0].limit"), "\(zeroCap)")
            let garbled = await runHerald(["apps", "update", id, "--frequency-cap", "marketing"] + where_)
            #expect(garbled.status != 0 && garbled.errorOutput.contains("CATEGORY:LIMIT/WINDOW"), "\(garbled)")
            let cleared = await runHerald(
                ["apps", "update", id, "--quiet-hours", "none", "--frequency-cap", "none"] + where_)
            #expect(cleared.status == 0, "\(cleared.errorOutput)")
            #expect(
                await runHerald(["apps", "show", id] + where_).output.contains(
                    "quiet hours none; frequency caps none"))
            let key = await runHerald(["apps", "keys", "create", id, "--scope", "send"] + where_)
            #expect(key.status == 0 && key.output.contains("API key sk_") && key.output.contains("  send  "), "\(key)")
            let keyID = try #require(key.output.split(separator: "\n").dropFirst().first?.split(separator: " ").first)
            let keys = await runHerald(["apps", "keys", "list", id] + where_)
            #expect(keys.output.contains("every scope") && keys.output.contains("\(keyID)  send"), "\(keys.output)")
            let badScope = await runHerald(["apps", "keys", "create", id, "--scope", "sned"] + where_)
            #expect(badScope.status != 0 && badScope.errorOutput.contains("sned"), "\(badScope.errorOutput)")
            #expect(await runHerald(["apps", "keys", "delete", id, String(keyID)] + where_).status == 0)
            #expect(!(await runHerald(["apps", "keys", "list", id] + where_).output.contains(String(keyID))))

            let unsure = await runHerald(["apps", "delete", id] + where_)
            #expect(unsure.status != 0)
            #expect(unsure.errorOutput.contains("add --yes"), "\(unsure.errorOutput)")
            let deleted = await runHerald(["apps", "delete", id, "--yes"] + where_)
            #expect(deleted.status == 0, "\(deleted.errorOutput)")
            #expect(await runHerald(["apps", "list"] + where_).output.contains("0 app(s)"))
            let neither = await runHerald(["apps", "create", "--bundle-id", "com.example.x"] + where_)
            #expect(neither.errorOutput.contains("--auth-key TEAMID:KEYID:AuthKey_KEYID.p8 or --cert FILE"))
        }
    }

    @Test(
        "create and update check the credentials with APNs: a wrong team ID exits 1 naming the fix, the right one passes"
    )
    func credentialsChecked() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.run {
            try await RunningProvider.with(configure: { $0.allowedEndpoints = ["https://127.0.0.1:\(gateway.port)"] }) {
                running in
                let folder = running.folder
                let keyFile = folder.appendingPathComponent("AuthKey_ABC123DEFG.p8")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(gateway.key.pemRepresentation.utf8).write(to: keyFile)
                let caFile = folder.appendingPathComponent("ca.pem")
                try Data(gateway.server.certificateAuthority.caCertificatePEM.utf8).write(to: caFile)
                let where_ = running.flags
                let endpoint = ["--endpoint", "https://127.0.0.1:\(gateway.port)", "--ca", caFile.path]

                let wrong = await runHerald(
                    [
                        "apps", "create", "--bundle-id", "com.example.cli", "--auth-key",
                        "ACMETEAM02:ABC123DEFG:\(keyFile.path)",
                    ]
                        + endpoint + where_)
                #expect(wrong.status == 1, "\(wrong.output)\(wrong.errorOutput)")
                #expect(
                    wrong.output.contains("created for com.example.cli"),
                    "the app and its keys are kept: \(wrong.output)")
                #expect(wrong.output.contains("403 InvalidProviderToken"), "\(wrong.output)")
                #expect(wrong.output.contains("APNs refused app "), "\(wrong.output)")
                let id = try #require(wrong.output.split(separator: " ").dropFirst().first.map(String.init))

                let right = await runHerald(
                    ["apps", "update", id, "--auth-key", "DEF123GHIJ:ABC123DEFG:\(keyFile.path)"] + where_)
                #expect(right.status == 0, "\(right.output)\(right.errorOutput)")
                #expect(right.output.contains("✓ credentials"), "\(right.output)")
            }
        }
    }
}
