import Crypto
import Foundation
import Testing

@testable import APNSCore

/// A `.p8` key as people hand it over: every way it goes wrong named, and the unambiguous ones repaired.
@Suite("A signing key's text: named when wrong, repaired when the fix is certain")
struct SigningKeyTextTests {
    let key = P256.Signing.PrivateKey()
    var pem: String { key.pemRepresentation }
    var base64Lines: [Substring] { pem.split(separator: "\n").filter { !$0.hasPrefix("-----") } }

    func repairedKey(_ text: String) throws -> (P256.Signing.PrivateKey, String?) {
        guard case .key(let read, let repaired) = SigningKeyText.read(text) else {
            Issue.record("not read as a key: \(SigningKeyText.read(text))")
            throw CancellationError()
        }
        return (try P256.Signing.PrivateKey(pemRepresentation: read), repaired)
    }

    @Test("Apple's .p8 as it is: read, nothing repaired")
    func asGiven() throws {
        let (read, repaired) = try repairedKey(pem)
        #expect(read.rawRepresentation == key.rawRepresentation && repaired == nil)
    }

    @Test("pasted on one line, or without its BEGIN and END lines: the same key, and said so")
    func repaired() throws {
        let oneLine = pem.replacingOccurrences(of: "\n", with: "")
        var (read, repaired) = try repairedKey(oneLine)
        #expect(read.rawRepresentation == key.rawRepresentation)
        #expect(repaired?.contains("line breaks were lost") == true)
        (read, repaired) = try repairedKey(base64Lines.joined(separator: "\n"))
        #expect(read.rawRepresentation == key.rawRepresentation)
        #expect(repaired?.contains("BEGIN PRIVATE KEY----- and -----END PRIVATE KEY----- lines were missing") == true)
        (read, _) = try repairedKey(" \n" + base64Lines.joined() + "\n\n")
        #expect(read.rawRepresentation == key.rawRepresentation)
    }

    @Test(
        "every other way is named: empty, cut short, damaged, RSA, another curve, a public key, not a key at all")
    func named() {
        let unusable = { (text: String) -> String in
            if case .unusable(let why) = SigningKeyText.read(text) { return why }
            return "read as a key"
        }
        #expect(unusable("") == "the file is empty (0 bytes)")
        #expect(unusable(String(pem.prefix(100))).contains("the -----END PRIVATE KEY----- line is missing"))
        let cut = "-----BEGIN PRIVATE KEY-----\n" + base64Lines[0] + "\n-----END PRIVATE KEY-----\n"
        #expect(unusable(cut).contains("cut short"), "\(unusable(cut))")
        let damaged = pem.replacingOccurrences(of: String(base64Lines[1].prefix(8)), with: "!!!!????")
        #expect(unusable(damaged).contains("not base64"), "\(unusable(damaged))")
        #expect(unusable(P384.Signing.PrivateKey().pemRepresentation).contains("another curve than P-256"))
        #expect(unusable(key.publicKey.pemRepresentation).contains("public key or a certificate"))
        #expect(unusable("hello").contains("not a PEM private key"))
        // An RSA key in PKCS#8: its algorithm is named, not "another curve".
        let rsaHeader = Data([
            0x30, 0x82, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01,
            0x01, 0x01, 0x05, 0x00,
        ])
        let rsa =
            "-----BEGIN PRIVATE KEY-----\n"
            + (rsaHeader + Data(count: 200)).base64EncodedString(
                options: .lineLength64Characters) + "\n-----END PRIVATE KEY-----\n"
        #expect(unusable(rsa).contains("an RSA key"), "\(unusable(rsa))")
    }
}
