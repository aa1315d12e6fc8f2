import APNSCore
import Foundation

/// One `--auth-key TEAMID:KEYID:PATH[:TOPIC,TOPIC...]`.
struct AuthKeyOption {
    let teamID: String
    let keyID: String
    let pem: String
    /// Where the key was read from.
    let path: String
    let topics: Set<String>?

    init(parsing text: String) throws(UsageError) {
        let parts = text.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            throw UsageError("--auth-key is TEAMID:KEYID:PATH[:TOPIC,TOPIC...]; got '\(text)'")
        }
        teamID = parts[0]
        keyID = parts[1]
        guard let pem = try? String(contentsOfFile: parts[2], encoding: .utf8) else {
            throw UsageError(
                "--auth-key: cannot read the key file \(parts[2]); make one for the local APNs with `herald keys "
                    + "generate`, or use the AuthKey_KEYID.p8 Apple gave you (developer account: Keys)")
        }
        self.pem = pem
        path = parts[2]
        topics = parts.count == 4 ? Set(parts[3].split(separator: ",").map(String.init)) : nil
    }

    /// A provider token for the printed example, when the file is a private key.
    func exampleToken() async -> String? {
        guard let signer = try? APNSProviderTokenSigner(privateKeyPEM: pem, keyID: keyID, teamID: teamID) else {
            return nil
        }
        return try? await signer.token(issuedAt: Date()).jwt
    }
}
