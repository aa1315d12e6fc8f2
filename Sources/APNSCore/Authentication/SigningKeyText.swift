import Crypto
import Foundation

/// A `.p8` key's text as people hand it over, read the way a person would: what is wrong with it, in words, and the
/// key itself when the fix is unambiguous (its line breaks lost by a paste onto one line, its `-----BEGIN` and
/// `-----END` lines lost): the same base64 of the same key, so nothing is guessed.
package enum SigningKeyText {
    /// What the text holds.
    package enum Reading: Equatable, Sendable {
        /// A P-256 private key: its PEM as given, or rebuilt when `repaired` says what was fixed.
        case key(pem: String, repaired: String?)
        /// Not a usable key, and why.
        case unusable(String)
    }

    /// How long the DER of an Apple `.p8` key is (PKCS#8, P-256, with its public key).
    static let appleKeyBytes = 138

    /// Reads `text` as a `.p8` key.
    package static func read(_ text: String) -> Reading {
        if text.isEmpty { return .unusable("the file is empty (0 bytes)") }
        if (try? P256.Signing.PrivateKey(pemRepresentation: text)) != nil { return .key(pem: text, repaired: nil) }
        if text.contains("BEGIN PUBLIC KEY") || text.contains("BEGIN CERTIFICATE") {
            return .unusable("it holds a public key or a certificate, not the private key APNs tokens are signed with")
        }
        if text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN ENCRYPTED PRIVATE KEY") {
            return .unusable("it holds an RSA or encrypted key; APNs keys are unencrypted P-256 (ES256) keys")
        }
        let begin = text.range(of: "-----BEGIN PRIVATE KEY-----") ?? text.range(of: "-----BEGIN EC PRIVATE KEY-----")
        let end = text.range(of: "-----END PRIVATE KEY-----") ?? text.range(of: "-----END EC PRIVATE KEY-----")
        if begin != nil, end == nil {
            return .unusable(
                "it is cut short: the -----END PRIVATE KEY----- line is missing (\(text.utf8.count) bytes; an Apple "
                    + ".p8 is about 240)")
        }
        let body: Substring
        if let begin, let end, begin.upperBound <= end.lowerBound {
            body = text[begin.upperBound..<end.lowerBound]
        } else if begin == nil, end == nil {
            body = text[...]
        } else {
            return .unusable("it is not a PEM private key (its BEGIN and END lines are out of order)")
        }
        let base64 = String(body.filter { !$0.isWhitespace })
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
        guard !base64.isEmpty, let der = Data(base64Encoded: base64) else {
            if begin != nil, !base64.isEmpty, base64.allSatisfy(alphabet.contains) {
                return .unusable(
                    "it is cut short or damaged: its \(base64.count) base64 characters do not decode (an Apple .p8 "
                        + "holds \(appleKeyBytes * 4 / 3))")
            }
            return .unusable(
                begin == nil
                    ? "it is not a PEM private key (no -----BEGIN PRIVATE KEY----- block)"
                    : "what stands between its BEGIN and END lines is not base64")
        }
        if let key = try? P256.Signing.PrivateKey(derRepresentation: der) {
            return .key(
                pem: key.pemRepresentation,
                repaired: begin == nil
                    ? "its -----BEGIN PRIVATE KEY----- and -----END PRIVATE KEY----- lines were missing"
                    : "its line breaks were lost (pasted on one line?)")
        }
        return .unusable(problem(withDER: der))
    }

    /// Why DER that is not a P-256 private key is not one.
    private static func problem(withDER der: Data) -> String {
        let bytes = [UInt8](der)
        let rsa: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
        let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        let p256: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        if contains(bytes, rsa) { return "it holds an RSA key; APNs signs with ES256, a P-256 key" }
        if contains(bytes, ecPublicKey), !contains(bytes, p256) {
            return "it holds an EC key on another curve than P-256; APNs signs with ES256"
        }
        if bytes.count < appleKeyBytes {
            return "it is cut short: \(bytes.count) of an Apple .p8 key's \(appleKeyBytes) bytes"
        }
        return "it is not a P-256 private key (\(bytes.count) bytes of DER that do not read as one)"
    }

    private static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count else { return false }
        return (0...(bytes.count - pattern.count)).contains { Array(bytes[$0..<($0 + pattern.count)]) == pattern }
    }
}
