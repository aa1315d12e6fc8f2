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
        let data: Data
        do {
            data = try OptionFile.read(parts[2], option: "--auth-key")
        } catch {
            throw UsageError(
                error.message + "; make a key for the local APNs with `herald keys generate`, or use the "
                    + "AuthKey_\(parts[1]).p8 Apple gave you (developer account: Keys)")
        }
        switch SigningKeyText.read(String(decoding: data, as: UTF8.self)) {
        case .unusable(let problem):
            throw UsageError("--auth-key: \(parts[2]): \(problem); use the .p8 file Apple gave you")
        case .key(let pem, let repaired):
            if let repaired {
                CommandIO.current.writeError(
                    "herald: note: --auth-key \(parts[2]): \(repaired); read as the key it holds\n")
            }
            self.pem = pem
        }
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
