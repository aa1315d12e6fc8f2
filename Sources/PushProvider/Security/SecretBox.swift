import APNSCore
import Crypto
package import Foundation
import HeraldSupport
package import ProviderStorage

/// Seals the secrets an app's APNs credentials hold (the `.p8` key, a certificate and its password) before they are
/// stored, with AES-256-GCM under the provider's master key.
package struct SecretBox: Sendable {
    private let key: SymmetricKey

    /// A box for a master key of exactly 32 bytes.
    ///
    /// - Throws: ``ProviderError`` when the key is not 32 bytes.
    package init(masterKey: Data) throws(ProviderError) {
        guard masterKey.count == 32 else {
            throw ProviderError.configuration(
                "the master key must be 32 bytes (64 hex digits or 44 base64 characters); it is \(masterKey.count)")
        }
        key = SymmetricKey(data: masterKey)
    }

    /// Loads the master key from `path`, or creates a random one there (mode 0600) when the file does not exist.
    ///
    /// - Throws: ``ProviderError`` when the file cannot be read, written or decoded.
    package static func loadOrCreate(at path: URL) throws(ProviderError) -> SecretBox {
        if let text = try? String(contentsOf: path, encoding: .utf8) {
            guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ProviderError.configuration("\(path.path) does not hold a base64 master key")
            }
            return try SecretBox(masterKey: data)
        }
        let data = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        do {
            try PrivateFile.write(Data(data.base64EncodedString().utf8), to: path)
        } catch {
            throw ProviderError.configuration("cannot write the master key to \(path.path): \(error)")
        }
        return try SecretBox(masterKey: data)
    }

    /// A key for one purpose derived from the master key (HKDF-SHA256), so no two uses share a key.
    func derivedKey(for purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data(purpose.utf8), outputByteCount: 32)
    }

    /// Encrypts `plaintext`; the result holds the nonce, the ciphertext and the tag.
    func seal(_ plaintext: Data) -> Data {
        // Safety: AES-GCM sealing with a fresh random nonce cannot fail for a 256-bit key.
        try! AES.GCM.seal(plaintext, using: key).combined!
    }

    /// Decrypts what ``seal(_:)`` produced.
    ///
    /// - Throws: ``ProviderError`` when the data was sealed under another master key or was altered.
    func open(_ sealed: Data) throws(ProviderError) -> Data {
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key)
        } catch {
            throw ProviderError.configuration(
                "a stored secret cannot be decrypted: the master key is not the one it was sealed with")
        }
    }
}
