package import APNSCore
import Synchronization

/// The provider keys the gateway trusts, which can grow while it runs (`POST /admin/keys`).
package final class ProviderKeys: Sendable {
    private let verifier: Mutex<APNSProviderTokenVerifier>

    /// The keys of `verifier`.
    package init(_ verifier: APNSProviderTokenVerifier = APNSProviderTokenVerifier()) {
        self.verifier = Mutex(verifier)
    }

    /// A copy of the verifier as it is now.
    package var current: APNSProviderTokenVerifier { verifier.withLock { $0 } }

    /// Adds (or replaces) a key.
    ///
    /// - Throws: ``APNSCredentialError`` when the PEM holds no P-256 key.
    package func add(
        pem: String, keyID: String, teamID: String, topics: Set<String>? = nil, environment: APNSEnvironment? = nil
    ) throws {
        var updated = current
        try updated.addKey(pem: pem, keyID: keyID, teamID: teamID, topics: topics, environment: environment)
        verifier.withLock { $0 = updated }
    }
}
