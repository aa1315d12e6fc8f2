import APNSCore
import Crypto
import Foundation
import HeraldSupport

/// The `.p8` signing key `herald up` makes at first start and trusts, so a provider can push at once.
struct DevelopmentSigningKey {
    static let keyID = "HERALDUP01"
    static let teamID = "HERALDTEAM"

    /// Where the private key is (PEM, as Apple's `.p8`).
    let path: String
    let publicKeyPEM: String

    /// Reads `DATA/AuthKey_HERALDUP01.p8`, creating it (mode 0600) on the first start; an older world-readable one is
    /// made private.
    static func loadOrCreate(in directory: URL) throws -> DevelopmentSigningKey {
        let file = directory.appendingPathComponent("AuthKey_\(keyID).p8")
        let key: P256.Signing.PrivateKey
        if let pem = try? String(contentsOf: file, encoding: .utf8) {
            do {
                key = try P256.Signing.PrivateKey(pemRepresentation: pem)
            } catch {
                throw UsageError("\(file.path) is not a P-256 private key; remove it and start again")
            }
            PrivateFile.restrict(file)
        } else {
            key = P256.Signing.PrivateKey()
            try PrivateFile.write(Data(key.pemRepresentation.utf8), to: file)
        }
        return DevelopmentSigningKey(path: file.path, publicKeyPEM: key.publicKey.pemRepresentation)
    }
}
