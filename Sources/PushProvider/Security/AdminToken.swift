import Foundation
import HeraldSupport
import ProviderStorage

/// The token that may create apps and act on every app: kept in `admin-token` (0600) in the provider's folder, made
/// at the first start.
enum AdminToken {
    /// The token in `directory`, or a new one written there; `created` is `true` when this call made it.
    ///
    /// - Throws: ``ProviderError/configuration(_:)`` when a new token cannot be written.
    static func loadOrCreate(in directory: URL) throws(ProviderError) -> (String, created: Bool) {
        let path = directory.appendingPathComponent("admin-token")
        if let text = try? String(contentsOf: path, encoding: .utf8) {
            return (text.trimmingCharacters(in: .whitespacesAndNewlines), false)
        }
        let token = KeyMaker.make(prefix: "adm_")
        do {
            try PrivateFile.write(Data(token.utf8), to: path)
        } catch {
            throw .configuration("cannot write the admin token to \(path.path): \(error)")
        }
        return (token, true)
    }
}
