import APNSCore
package import Courier
import Crypto
package import Foundation
import HeraldSupport

/// Who may use the gateway's admin API: whoever sends `Authorization: Bearer <token>` with the token kept in
/// `DATA/admin-token` (mode 0600, made at the first start). With ``insecure`` (loopback only, `--insecure-admin`)
/// every caller may, as before the credential existed.
package struct AdminCredential: Sendable {
    /// The token, as the file holds it.
    package let token: String
    /// Whether this start made the token (so it is shown once, now).
    package let created: Bool
    /// The file it is kept in.
    package let path: URL
    /// Admin calls need no token (loopback gateways only).
    package let insecure: Bool

    /// The `WWW-Authenticate` value a 401 carries.
    static let challenge = "Bearer realm=\"herald gateway admin\""

    /// Reads `DATA/admin-token`, or makes a new random token there.
    ///
    /// - Throws: ``GatewayDataError`` when the file cannot be read or written.
    package static func loadOrCreate(in directory: URL, insecure: Bool = false) throws(GatewayDataError)
        -> AdminCredential
    {
        let path = directory.appendingPathComponent("admin-token")
        if let text = try? String(contentsOf: path, encoding: .utf8) {
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.count >= 32 else {
                throw GatewayDataError("\(path.path) holds no admin token; remove it and a new one is made at start")
            }
            return AdminCredential(token: token, created: false, path: path, insecure: insecure)
        }
        let token = "gwa_" + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64URLEncodedString
        do {
            try PrivateFile.write(Data((token + "\n").utf8), to: path)
        } catch {
            throw GatewayDataError("cannot write the admin token: \(error)")
        }
        return AdminCredential(token: token, created: true, path: path, insecure: insecure)
    }

    /// Why a request with this `authorization` header value may not use the admin API, or `nil` when it may.
    func refusal(authorization: String?) -> String? {
        if insecure { return nil }
        guard let authorization else {
            return "the admin API needs the gateway's admin token: send Authorization: Bearer <the token in "
                + "\(path.path)>"
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return "the Authorization header is 'Bearer <admin token>'; the token is in \(path.path)"
        }
        // Compared as digests so the time taken says nothing about how much of the token matched.
        let given = SHA256.hash(data: Data(parts[1].utf8))
        let expected = SHA256.hash(data: Data(token.utf8))
        guard given == expected else { return "the admin token is not this gateway's; it is in \(path.path)" }
        return nil
    }
}
