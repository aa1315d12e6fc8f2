import APNSCore
import Crypto
import Foundation
import Testing

@testable import HeraldCLI

@Suite("herald keys generate: a .p8 the local APNs accepts, private, never overwritten")
struct KeysCommandTests {
    @Test("writes Apple's .p8 form (PKCS#8 PEM) with mode 0600, and a token signed with it verifies")
    func generate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = await runHerald(["keys", "generate", "--team-id", "DEF123GHIJ", "--out", folder.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let name = try #require(files.first { $0.hasPrefix("AuthKey_") && $0.hasSuffix(".p8") }, "\(files)")
        let keyID = String(name.dropFirst("AuthKey_".count).dropLast(".p8".count))
        #expect(APNSIdentifiers.isWellFormed(keyID), "\(keyID)")
        let path = folder.appendingPathComponent(name).path
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(result.output.contains("gateway --auth-key DEF123GHIJ:\(keyID):\(path)"), "\(result.output)")
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"), "PKCS#8, as Apple's: \(pem)")
        let key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        var verifier = APNSProviderTokenVerifier()
        try verifier.addKey(pem: key.publicKey.pemRepresentation, keyID: keyID, teamID: "DEF123GHIJ")
        let signer = try APNSProviderTokenSigner(privateKeyPEM: pem, keyID: keyID, teamID: "DEF123GHIJ")
        let token = try await signer.token(issuedAt: Date())
        let verified = await verifier.verify(jwt: token.jwt, now: Date())
        #expect((try? verified.get()) != nil, "\(verified)")
    }

    @Test("--out names a folder that does not exist yet: it is made (0700) and the key written in it")
    func makesTheFolder() async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("herald-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("keys/local")
        let result = await runHerald(["keys", "generate", "--key-id", "ABC123DEFG", "--out", folder.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("AuthKey_ABC123DEFG.p8").path))
        let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("an existing key is never replaced, and IDs of the wrong form are refused with the rule")
    func refusals() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = await runHerald(["keys", "generate", "--key-id", "ABC123DEFG", "--out", folder.path])
        #expect(first.status == 0)
        let path = folder.appendingPathComponent("AuthKey_ABC123DEFG.p8").path
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let again = await runHerald(["keys", "generate", "--key-id", "ABC123DEFG", "--out", folder.path])
        #expect(again.status == 1)
        #expect(again.errorOutput.contains("a key with that ID is there already"), "\(again.errorOutput)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
        for bad in [["--key-id", "ABC123DEF"], ["--team-id", "team123456"], ["--key-id", ""]] {
            let refused = await runHerald(["keys", "generate", "--out", folder.path] + bad)
            #expect(refused.status == 2, "\(bad)")
            #expect(refused.errorOutput.contains("is not 10 uppercase letters or digits"), "\(refused.errorOutput)")
        }
    }

    @Test("a missing key file says how to make one")
    func missingKey() async {
        let result = await runHerald([
            "send", "--url", "https://127.0.0.1:1", "--auth-key", "DEF123GHIJ:ABC123DEFG:/nonexistent/AuthKey.p8",
            "--topic", "com.example.app", "--token", String(repeating: "ab", count: 32), "--body", "x",
        ])
        #expect(result.status == 2)
        #expect(result.errorOutput.contains("herald keys generate"), "\(result.errorOutput)")
    }
}
