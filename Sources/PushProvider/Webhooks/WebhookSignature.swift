import Crypto
import Foundation

/// Signs webhook requests as the Standard Webhooks specification does (standardwebhooks.com): a secret
/// `whsec_<base64 of 32 random bytes>`, and on each request `webhook-id`, `webhook-timestamp` (UNIX seconds) and
/// `webhook-signature: v1,<base64 of HMAC-SHA256(secret, "{id}.{timestamp}.{body}")>`, one signature per secret in
/// use, separated by spaces (during a rotation, the new secret's and the previous one's).
enum WebhookSignature {
    /// The prefix of a secret's text.
    static let prefix = "whsec_"

    /// A new secret's text: `whsec_` and 32 random bytes in base64.
    static func newSecret() -> String {
        prefix + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
    }

    /// The key of a secret's text (the bytes after `whsec_`); `nil` when it is not one.
    static func key(of secret: String) -> SymmetricKey? {
        guard secret.hasPrefix(prefix), let bytes = Data(base64Encoded: String(secret.dropFirst(prefix.count))),
            !bytes.isEmpty
        else { return nil }
        return SymmetricKey(data: bytes)
    }

    /// The `webhook-signature` value of `body` sent as event `id` at `timestamp`, signed with each of `secrets`.
    static func header(id: String, timestamp: Int, body: Data, secrets: [String]) -> String {
        let signed = Data("\(id).\(timestamp).".utf8) + body
        return secrets.compactMap(key(of:)).map { key in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: key)).base64EncodedString()
        }.joined(separator: " ")
    }

    /// Whether `header` carries a valid signature of `body` as event `id` at `timestamp` by `secret`: what a
    /// receiver checks (docs/api.md shows one), compared in constant time.
    static func verify(header: String, id: String, timestamp: Int, body: Data, secret: String) -> Bool {
        guard let key = key(of: secret) else { return false }
        let signed = Data("\(id).\(timestamp).".utf8) + body
        return header.split(separator: " ").contains { part in
            guard part.hasPrefix("v1,"), let mac = Data(base64Encoded: String(part.dropFirst(3))) else { return false }
            return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: key)
        }
    }
}
