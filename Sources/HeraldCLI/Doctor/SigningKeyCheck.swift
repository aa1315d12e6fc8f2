import APNSClient
import APNSCore
import Crypto
import Foundation

/// `herald doctor`'s look at `--auth-key TEAMID:KEYID:FILE`: the file is Apple's `.p8` (a P-256 private key) and the
/// IDs have Apple's form. It reads the file itself, so every way a key file can be wrong gets its own words.
enum SigningKeyCheck {
    /// The check, and the key's PEM when it can sign.
    static func run(authKey: String) -> (check: DoctorCheck, pem: String?) {
        let name = "key file"
        let parts = authKey.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else {
            return (
                .failed(
                    name, "--auth-key '\(authKey)' is not TEAMID:KEYID:FILE",
                    next: "give the team ID, the key ID and the .p8 file: --auth-key DEF123GHIJ:ABC123DEFG:AuthKey.p8"),
                nil
            )
        }
        let (teamID, keyID, path) = (parts[0], parts[1], parts[2])
        guard let data = FileManager.default.contents(atPath: path) else {
            return (
                .failed(
                    name, "cannot read \(path)",
                    next: "give the AuthKey_\(keyID).p8 Apple gave you (developer account: Keys), or make a local one "
                        + "with `herald keys generate`"),
                nil
            )
        }
        let text = String(decoding: data, as: UTF8.self)
        if let problem = problem(with: text, bytes: data.count) {
            return (
                .failed(name, "\(path): \(problem)", next: "use the .p8 file Apple gave you when you made the key"), nil
            )
        }
        for (label, value, example) in [("key ID", keyID, "ABC123DEFG"), ("team ID", teamID, "DEF123GHIJ")]
        where !APNSIdentifiers.isWellFormed(value) {
            return (
                .failed(
                    name, "the \(label) '\(value)' is not 10 uppercase letters or digits (\(value.count) characters)",
                    next: label == "key ID"
                        ? "copy the key ID from the Keys page of your developer account (for example \(example))"
                        : "copy the team ID from the Membership page of your developer account (for example \(example))"
                ),
                nil
            )
        }
        let form = text.contains("BEGIN PRIVATE KEY") ? "PKCS#8, as Apple's .p8" : "SEC1; Apple's .p8 is PKCS#8"
        return (
            .passed(
                name, "\(path): a P-256 private key (\(form)); key ID \(keyID) and team ID \(teamID) have Apple's form"
            ),
            text
        )
    }

    /// What is wrong with a key file's text, or `nil` when it holds a P-256 private key.
    static func problem(with text: String, bytes: Int) -> String? {
        if bytes == 0 { return "the file is empty (0 bytes)" }
        if (try? P256.Signing.PrivateKey(pemRepresentation: text)) != nil { return nil }
        if text.contains("BEGIN PUBLIC KEY") || text.contains("BEGIN CERTIFICATE") {
            return "it holds a public key or a certificate, not the private key APNs tokens are signed with"
        }
        if text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN ENCRYPTED PRIVATE KEY") {
            return "it holds an RSA or encrypted key; APNs keys are unencrypted P-256 (ES256) keys"
        }
        if text.contains("BEGIN PRIVATE KEY") || text.contains("BEGIN EC PRIVATE KEY") {
            return "it holds a private key that is not on the P-256 curve (an RSA key?); APNs signs with ES256"
        }
        return "it is not a PEM private key (no -----BEGIN PRIVATE KEY----- block)"
    }
}
