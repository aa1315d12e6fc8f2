import Foundation
import HeraldSupport
import ProviderStorage

/// The token that may create apps and act on every app: one for every provider on a database (stored in it, sealed
/// with the master key they share), kept in `admin-token` (0600) in each provider's folder for the CLI there.
enum AdminToken {
    /// The database's admin token: the one the first provider stored, else this folder's (or a new one), stored now;
    /// written to this folder's `admin-token` when it differs. `created` is `true` when this call made it.
    ///
    /// - Throws: ``ProviderError/configuration(_:)`` when this provider's master key cannot open the stored token
    ///   (another provider's master key made it) or the file cannot be written.
    static func loadOrCreate(in directory: URL, store: any ProviderStore, secrets: SecretBox)
        async throws(ProviderError) -> (String, created: Bool)
    {
        let path = directory.appendingPathComponent("admin-token")
        let local = (try? String(contentsOf: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let proposed = local ?? KeyMaker.make(prefix: "adm_")
        let stored = try await store.sharedSetting("admin-token", proposing: secrets.seal(Data(proposed.utf8)))
        let token: String
        do {
            token = String(decoding: try secrets.open(stored), as: UTF8.self)
        } catch {
            throw .configuration(
                "this provider's master key (\(directory.appendingPathComponent("master.key").path)) is not the one "
                    + "the database's first provider used: it cannot open the apps' credentials either; copy that "
                    + "provider's DATA/provider/master.key here (docs/production.md, Several providers)")
        }
        if token != local {
            do {
                try PrivateFile.write(Data(token.utf8), to: path)
            } catch {
                throw .configuration("cannot write the admin token to \(path.path): \(error)")
            }
        }
        return (token, local == nil && token == proposed)
    }
}
