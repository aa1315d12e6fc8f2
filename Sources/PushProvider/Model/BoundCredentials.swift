import Foundation
import ProviderStorage

/// An app's credentials sealed together with the endpoint they were given for: the provider presents its tokens and
/// certificates only there, so changing an app's endpoint cannot send them elsewhere.
struct BoundCredentials: Codable, Sendable {
    var credentials: AppCredentials
    /// The endpoint the credentials were given for; `nil` for credentials sealed before binding (they follow the
    /// app's endpoint, which only the admin or the allow-list could set).
    var endpoint: String?

    /// Seals them with the provider's master key.
    func sealed(with secrets: SecretBox) throws(ProviderError) -> Data {
        do {
            return secrets.seal(try JSONEncoder().encode(self))
        } catch {
            throw .configuration("cannot encode credentials: \(error)")
        }
    }

    /// Opens sealed credentials, bound or from before binding.
    ///
    /// - Throws: ``ProviderError`` when they cannot be opened or read.
    static func open(_ sealed: Data, with secrets: SecretBox) throws(ProviderError) -> BoundCredentials {
        let data = try secrets.open(sealed)
        if let bound = try? JSONDecoder().decode(BoundCredentials.self, from: data) { return bound }
        do {
            return BoundCredentials(credentials: try JSONDecoder().decode(AppCredentials.self, from: data))
        } catch {
            throw .configuration("the stored credentials cannot be read: \(error)")
        }
    }
}
