package import Foundation

/// Where the console keeps its signed-in browsers, its one-time sign-in codes and its failed sign-ins, so that
/// every provider on one database knows them: a browser signed in through one provider is signed in on all, a
/// sign-out on one ends it on all, and failed sign-ins from one address count across them.
///
/// Secrets are never stored as they are: a session and a code by their SHA-256, the key they sign in with sealed by
/// the provider's master key (the caller seals and opens it).
package protocol ConsoleSessionStore: Sendable {
    /// Stores `session` unless its address has `limits.perAddress` live sessions or the store has `limits.capacity`;
    /// when its key has `limits.perKey`, that key's session that lapses first ends. Lapsed sessions are removed.
    ///
    /// - Returns: whether it was stored.
    func openConsoleSession(_ session: StoredConsoleSession, limits: ConsoleSessionLimits, now: Date)
        async throws(ProviderError) -> Bool
    /// The session with this identifier hash, when it has not lapsed at `now`.
    func consoleSession(idHash: String, now: Date) async throws(ProviderError) -> StoredConsoleSession?
    /// Moves a session's end to `until` (it was used).
    func extendConsoleSession(idHash: String, until: Date) async throws(ProviderError)
    func closeConsoleSession(idHash: String) async throws(ProviderError)

    /// Stores a one-time sign-in code (by its hash) for the sealed key, until `expiresAt`; codes lapsed at `now` go.
    func addConsoleLoginCode(codeHash: String, sealedKey: String, expiresAt: Date, now: Date)
        async throws(ProviderError)
    /// Spends a code: its sealed key when it had not lapsed at `now`; the code is gone either way.
    func redeemConsoleLoginCode(codeHash: String, now: Date) async throws(ProviderError) -> String?

    /// Counts a failed sign-in from `address`.
    func recordConsoleSignInFailure(address: String, at: Date) async throws(ProviderError)
    /// The times of the failed sign-ins from `address` after `since`, oldest first (the others are removed).
    func consoleSignInFailures(address: String, since: Date) async throws(ProviderError) -> [Date]
}

/// A signed-in browser as stored.
package struct StoredConsoleSession: Sendable, Equatable {
    /// SHA-256 (hex) of the session's identifier, which only the browser's cookie holds.
    package var idHash: String
    /// The token the page sends with every change.
    package var csrfToken: String
    /// The admin token or API key it signed in with, sealed.
    package var sealedKey: String
    /// SHA-256 (hex) of that key: sessions are counted per key.
    package var keyHash: String
    /// The app the key spoke for at sign-in; `nil` for the admin token.
    package var holderAppID: String?
    /// The address it signed in from.
    package var address: String
    package var expiresAt: Date

    /// Every stored property, as given.
    package init(
        idHash: String, csrfToken: String, sealedKey: String, keyHash: String, holderAppID: String?, address: String,
        expiresAt: Date
    ) {
        self.idHash = idHash
        self.csrfToken = csrfToken
        self.sealedKey = sealedKey
        self.keyHash = keyHash
        self.holderAppID = holderAppID
        self.address = address
        self.expiresAt = expiresAt
    }
}

/// How many console sessions may be open: per key (one more ends that key's oldest), per address and in all (one
/// more is refused).
package struct ConsoleSessionLimits: Sendable {
    package var perKey: Int
    package var perAddress: Int
    package var capacity: Int

    package init(perKey: Int, perAddress: Int, capacity: Int) {
        self.perKey = perKey
        self.perAddress = perAddress
        self.capacity = capacity
    }
}
