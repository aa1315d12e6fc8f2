import Crypto
import Foundation

/// Where the app's end-to-end private key lives: the Keychain on Apple platforms
/// (`EndToEndKeyStore+Keychain.swift`), a file only its owner can read elsewhere (here).
protocol EndToEndKeyStore: Sendable {
    /// The key kept, or nil when there is none yet.
    func load() throws(HeraldError) -> Curve25519.KeyAgreement.PrivateKey?
    /// Keeps `key`, replacing any other.
    func save(_ key: Curve25519.KeyAgreement.PrivateKey) throws(HeraldError)
}

/// The key as 32 raw bytes in a file of mode 0600 in HeraldKit's folder.
struct FileKeyStore: EndToEndKeyStore {
    let file: URL

    func load() throws(HeraldError) -> Curve25519.KeyAgreement.PrivateKey? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            return try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(contentsOf: file))
        } catch {
            throw .endToEnd("the key file \(file.path) cannot be read (\(error)); delete it to make a new key")
        }
    }

    func save(_ key: Curve25519.KeyAgreement.PrivateKey) throws(HeraldError) {
        let manager = FileManager.default
        let temporary = file.appendingPathExtension("new")
        guard
            manager.createFile(
                atPath: temporary.path, contents: key.rawRepresentation, attributes: [.posixPermissions: 0o600])
        else {
            throw .storage("cannot write the end-to-end key to \(temporary.path)")
        }
        do {
            if manager.fileExists(atPath: file.path) {
                _ = try manager.replaceItemAt(file, withItemAt: temporary)
            } else {
                try manager.moveItem(at: temporary, to: file)
            }
        } catch {
            throw .storage("cannot keep the end-to-end key at \(file.path): \(error.localizedDescription)")
        }
    }
}
