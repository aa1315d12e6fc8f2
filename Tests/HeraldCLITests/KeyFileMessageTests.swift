import Crypto
import Foundation
import Testing

@testable import HeraldCLI

/// Every way an operator hands over a key file wrong gets a message that leads with the cause and the fix.
@Suite("A key file handed over wrong: the cause first, the fix after")
final class KeyFileMessageTests {
    /// A folder for each test's files, removed after it (a suite instance lives for one test).
    let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-keys-\(UUID())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    deinit { try? FileManager.default.removeItem(at: folder) }

    func doctor(_ path: String) async -> String {
        let result = await runHerald([
            "doctor", "--topic", "com.example.app", "--auth-key", "DEF123GHIJ:ABC123DEFG:\(path)",
            "--url", "https://127.0.0.1:1", "--timeout", "1",
        ])
        return result.output + result.errorOutput
    }

    @Test("a ~ the shell left, a folder, a missing file: each named")
    func paths() async throws {
        #expect(await doctor("~/Downloads/AuthKey_ABC123DEFG.p8").contains("the shell expands ~ only at the start"))
        #expect(await doctor(folder.path).contains("is a folder, not a file"))
        #expect(await doctor(folder.appendingPathComponent("nothing.p8").path).contains("no file"))
    }

    @Test("--cert and --ca name the way their file could not be read, as --auth-key does")
    func otherFiles() async throws {
        let cert = await runHerald([
            "apps", "create", "--bundle-id", "com.example.app", "--cert", "~/push.p12", "--provider",
            "http://127.0.0.1:1",
            "--provider-token-file", "/dev/null",
        ])
        #expect(cert.errorOutput.contains("--cert: no file ~/push.p12: the shell expands ~"), "\(cert.errorOutput)")
        let ca = await runHerald([
            "apps", "update", "app_x", "--ca", folder.path, "--provider", "http://127.0.0.1:1",
            "--provider-token-file", "/dev/null",
        ])
        #expect(ca.errorOutput.contains("--ca: \(folder.path) is a folder, not a file"), "\(ca.errorOutput)")
    }

    @Test("a key pasted on one line is read as the key it is, and said so; one cut short is named")
    func contents() async throws {
        let key = P256.Signing.PrivateKey()
        let oneLine = folder.appendingPathComponent("one-line.p8")
        try Data(key.pemRepresentation.replacingOccurrences(of: "\n", with: "").utf8).write(to: oneLine)
        let repaired = await doctor(oneLine.path)
        #expect(repaired.contains("✓ key file") && repaired.contains("line breaks were lost"), "\(repaired)")
        let cut = folder.appendingPathComponent("cut.p8")
        try Data(key.pemRepresentation.prefix(120).utf8).write(to: cut)
        let named = await doctor(cut.path)
        #expect(named.contains("✗ key file") && named.contains("cut short"), "\(named)")
        #expect(!named.contains("RSA"), "\(named)")
    }
}

/// `herald serve` that cannot use its database: the cause first, and no half-made data folder left.
@Suite("A failed start says why first and leaves nothing behind")
struct ServeStartFailureTests {
    @Test("a database nothing listens at: the cause leads, the new data folder is gone")
    func databaseUnreachable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-failed-\(UUID())")
        let result = await runHerald([
            "serve", "--data", folder.path, "--port", "0",
            "--database", "postgres://herald:secret@127.0.0.1:1/herald?sslmode=disable",
        ])
        #expect(result.status != 0)
        #expect(
            result.errorOutput.hasPrefix("error: nothing listens at 127.0.0.1:1 (connection refused)"),
            "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("secret"))
        #expect(!FileManager.default.fileExists(atPath: folder.path), "no half-made folder is left")
    }
}
