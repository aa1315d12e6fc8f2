import Crypto
import Foundation
import HeraldTime
import ProviderStorage
import PushProvider
import Synchronization

/// The console's signed-in browsers, its one-time sign-in codes and its failed sign-ins, kept in the provider's
/// database (``ConsoleSessionStore``): every provider on one database knows them, so a browser signed in through one
/// is signed in on all, a sign-out on one ends it on all, a restart signs no one out, and failed sign-ins from one
/// address count across them. Only the live views open per session are counted in memory (they are this process's
/// connections).
///
/// A session keeps the key it was opened with (the admin token or an app's API key) on the server, sealed with the
/// master key; the browser only holds the session's random identifier in an HttpOnly cookie (the database holds its
/// SHA-256), and a separate CSRF token it must send with every change.
final class ConsoleSessions: Sendable {
    /// A session as stored: not yet checked against whom its key speaks for now (``ConsolePlugin/confirmed(_:by:)``).
    struct Stored: Sendable {
        let id: String
        /// Sent back by the page as `X-CSRF-Token` (or the form field `csrf`) on every change.
        let csrfToken: String
        /// The admin token or API key the browser signed in with; never sent back to it.
        let key: String
        /// The app the key spoke for at sign-in; `nil` for the admin token.
        let holderAppID: String?
    }

    /// A signed-in browser whose key was checked on this request.
    struct Session: Sendable {
        let stored: Stored
        /// Whom the key speaks for now.
        let holder: PushProviderService.KeyHolder

        var id: String { stored.id }
        var csrfToken: String { stored.csrfToken }
        var key: String { stored.key }
    }

    /// How long a session lives without use.
    static let idleLifetime: TimeInterval = 12 * 3600
    /// How long a login code printed by `herald up` stays valid.
    static let codeLifetime: TimeInterval = 15 * 60
    /// At most this many sessions per key: one more ends that key's least recently used session, so a key can sign
    /// out only its own holders, never another key's.
    static let sessionsPerKey = 100
    /// At most this many sessions opened from one address; one more is refused (429) until one ends or lapses.
    static let sessionsPerAddress = 200
    /// At most this many sessions at once; one more is refused (429), no one is signed out.
    static let capacity = 100_000
    /// At most this many live views (Server-Sent Events streams) open at once per session: enough for a few tabs.
    static let streamsPerSession = 16
    /// At most this many failed sign-ins a minute from one address; more from it are refused (429) until the minute
    /// has passed. Other addresses, and the admin token from any address, are not held back.
    static let failedSignInsPerMinute = 20

    /// The live views open per session in this process.
    private let streams = Mutex<[String: Int]>([:])
    /// The provider whose database keeps the sessions (set when the console's routes are added).
    private let attached = Mutex<PushProviderService?>(nil)
    /// The time sessions, login codes and sign-in limits are judged by (the provider's, under `herald serve`).
    private let clock: any WallClock

    init(clock: any WallClock = SystemWallClock()) {
        self.clock = clock
    }

    /// Keeps the sessions in `provider`'s database.
    func attach(to provider: PushProviderService) {
        attached.withLock { $0 = provider }
    }

    private func provider() throws(ProviderError) -> PushProviderService {
        guard let provider = attached.withLock({ $0 }) else {
            throw .configuration("the console was not added to a provider")
        }
        return provider
    }

    /// Opens a session for `key`, which `holder` says whom it speaks for, from `address`.
    ///
    /// - Returns: `nil` when `address` has ``sessionsPerAddress`` sessions open, or all ``capacity`` are in use.
    func open(key: String, holder: PushProviderService.KeyHolder, from address: String) async throws(ProviderError)
        -> Session?
    {
        let provider = try provider()
        let now = clock.currentDate
        let stored = Stored(
            id: Self.random(), csrfToken: Self.random(), key: key,
            holderAppID: { if case .app(let app) = holder { app.id } else { nil } }())
        let opened = try await provider.consoleSessionStore.openConsoleSession(
            StoredConsoleSession(
                idHash: Self.hash(stored.id), csrfToken: stored.csrfToken, sealedKey: provider.seal(key),
                keyHash: Self.hash(key), holderAppID: stored.holderAppID, address: address,
                expiresAt: now.addingTimeInterval(Self.idleLifetime)),
            limits: ConsoleSessionLimits(
                perKey: Self.sessionsPerKey, perAddress: Self.sessionsPerAddress, capacity: Self.capacity),
            now: now)
        return opened ? Session(stored: stored, holder: holder) : nil
    }

    /// Whether session `id` is open (without extending its lifetime, as a live view checks it).
    func isOpen(id: String) async throws(ProviderError) -> Bool {
        try await provider().consoleSessionStore.consoleSession(idHash: Self.hash(id), now: clock.currentDate) != nil
    }

    /// The live session with identifier `id`, its lifetime extended (written at most once a minute).
    func session(id: String) async throws(ProviderError) -> Stored? {
        let provider = try provider()
        let now = clock.currentDate
        let hash = Self.hash(id)
        guard let found = try await provider.consoleSessionStore.consoleSession(idHash: hash, now: now) else {
            return nil
        }
        let extended = now.addingTimeInterval(Self.idleLifetime)
        if extended.timeIntervalSince(found.expiresAt) > 60 {
            try await provider.consoleSessionStore.extendConsoleSession(idHash: hash, until: extended)
        }
        return Stored(
            id: id, csrfToken: found.csrfToken, key: try provider.unseal(found.sealedKey),
            holderAppID: found.holderAppID)
    }

    /// Ends a session.
    func close(id: String) async throws(ProviderError) {
        try await provider().consoleSessionStore.closeConsoleSession(idHash: Self.hash(id))
    }

    /// A code that signs in once with `key`, for a link printed on the terminal.
    func makeLoginCode(for key: String) async throws(ProviderError) -> String {
        let provider = try provider()
        let now = clock.currentDate
        let code = Self.random()
        try await provider.consoleSessionStore.addConsoleLoginCode(
            codeHash: Self.hash(code), sealedKey: provider.seal(key),
            expiresAt: now.addingTimeInterval(Self.codeLifetime),
            now: now)
        return code
    }

    /// The key behind `code`; the code is spent whether or not it was still valid.
    func redeem(code: String) async throws(ProviderError) -> String? {
        let provider = try provider()
        guard
            let sealed = try await provider.consoleSessionStore.redeemConsoleLoginCode(
                codeHash: Self.hash(code), now: clock.currentDate)
        else { return nil }
        return try provider.unseal(sealed)
    }

    /// Counts a live view opened for session `id`.
    ///
    /// - Returns: `false` when the session has ``streamsPerSession`` open already (nothing is counted then).
    func beginStream(sessionID id: String) -> Bool {
        streams.withLock { streams in
            let open = streams[id, default: 0]
            guard open < Self.streamsPerSession else { return false }
            streams[id] = open + 1
            return true
        }
    }

    /// Counts a live view of session `id` closed.
    func endStream(sessionID id: String) {
        streams.withLock { streams in
            let open = streams[id, default: 1] - 1
            streams[id] = open > 0 ? open : nil
        }
    }

    /// How long until another sign-in may be tried, when the last minute's failures reached
    /// ``failedSignInsPerMinute``; `nil` when one may be tried now.
    func signInWait(from address: String) async throws(ProviderError) -> TimeInterval? {
        let now = clock.currentDate
        let failures = try await provider().consoleSessionStore.consoleSignInFailures(
            address: address, since: now.addingTimeInterval(-60))
        guard failures.count >= Self.failedSignInsPerMinute, let first = failures.first else { return nil }
        return 60 - now.timeIntervalSince(first)
    }

    /// Counts a failed sign-in (a wrong key or a spent login code) from `address`.
    func recordFailedSignIn(from address: String) async throws(ProviderError) {
        try await provider().consoleSessionStore.recordConsoleSignInFailure(address: address, at: clock.currentDate)
    }

    /// SHA-256 of `text`, hex: what the database keeps of a session's identifier, a code or a key.
    private static func hash(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// 32 random bytes, base64url.
    private static func random() -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
