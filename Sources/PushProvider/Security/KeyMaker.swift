import Crypto
import Foundation

/// Makes and checks the provider's secrets: API keys (`sk_...`), publishable keys (`pk_...`) and the admin token.
package enum KeyMaker {
    /// A new random key with `prefix`: 32 random bytes as 64 hex digits.
    static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// What is stored for an API key: its SHA-256 in hex. The key itself is shown once and never stored.
    static func hash(_ key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `given` is `secret`, compared as SHA-256 digests so the time taken says nothing about how much of the
    /// secret matched (a plain `==` stops at the first differing byte).
    package static func matches(_ given: String, _ secret: String) -> Bool {
        SHA256.hash(data: Data(given.utf8)) == SHA256.hash(data: Data(secret.utf8))
    }
}
