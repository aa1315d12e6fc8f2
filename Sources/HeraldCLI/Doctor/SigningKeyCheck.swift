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
        let data: Data
        do {
            data = try OptionFile.read(path, option: "--auth-key")
        } catch {
            return (
                .failed(
                    name, error.message,
                    next: "give the AuthKey_\(keyID).p8 Apple gave you (developer account: Keys), or make a local one "
                        + "with `herald keys generate`"),
                nil
            )
        }
        let text: String
        let repaired: String?
        switch SigningKeyText.read(String(decoding: data, as: UTF8.self)) {
        case .unusable(let problem):
            return (
                .failed(name, "\(path): \(problem)", next: "use the .p8 file Apple gave you when you made the key"), nil
            )
        case .key(let pem, let fixed): (text, repaired) = (pem, fixed)
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
        let fixed = repaired.map { "; \($0), read as the key it holds" } ?? ""
        return (
            .passed(
                name,
                "\(path): a P-256 private key (\(form))\(fixed); key ID \(keyID) and team ID \(teamID) have Apple's form"
            ),
            text
        )
    }
}
