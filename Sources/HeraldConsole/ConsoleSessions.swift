import Crypto
import Foundation
import HeraldTime
import PushProvider
import Synchronization

/// The console's signed-in browsers and its one-time login codes, in memory: a restart signs everyone out.
///
/// A session keeps the key it was opened with (the admin token or an app's API key) on the server; the browser only
/// holds the session's random identifier in an HttpOnly cookie, and a separate CSRF token it must send with every
/// change.
final class ConsoleSessions: Sendable {
    /// A signed-in browser.
    struct Session: Sendable {
        let id: String
        /// Sent back by the page as `X-CSRF-Token` (or the form field `csrf`) on every change.
        let csrfToken: String
        /// The admin token or API key the browser signed in with; never sent back to it.
        let key: String
        /// Whom the key spoke for when last checked (each request checks it again: ``ConsoleRoutes/liveSession(_:)``).
        var holder: PushProviderService.KeyHolder
        /// The address the browser signed in from (``ConsoleRoutes/address(_:)``).
        let address: String
        var expires: Date
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
    /// At most this many sessions at once (memory); one more is refused (429), no one is signed out.
    static let capacity = 100_000
    /// At most this many live views (Server-Sent Events streams) open at once per session: enough for a few tabs.
    static let streamsPerSession = 16
    /// At most this many failed sign-ins a minute from one address; more from it are refused (429) until the minute
    /// has passed. Other addresses, and the admin token from any address, are not held back.
    static let failedSignInsPerMinute = 20
    /// At most this many addresses are remembered with failures; the one whose last failure is oldest goes first.
    static let failingAddressCapacity = 10_000

    private struct State {
        var sessions: [String: Session] = [:]
        var codes: [String: (key: String, expires: Date)] = [:]
        var streams: [String: Int] = [:]
        var failedSignIns: [String: [Date]] = [:]
    }

    private let state = Mutex(State())
    /// The time sessions, login codes and sign-in limits are judged by (the provider's, under `herald serve`).
    private let clock: any WallClock

    init(clock: any WallClock = SystemWallClock()) {
        self.clock = clock
    }

    /// Opens a session for `key`, which `holder` says whom it speaks for, from `address`.
    ///
    /// - Returns: `nil` when `address` has ``sessionsPerAddress`` sessions open, or all ``capacity`` are in use.
    func open(key: String, holder: PushProviderService.KeyHolder, from address: String) -> Session? {
        let now = clock.currentDate
        let session = Session(
            id: Self.random(), csrfToken: Self.random(), key: key, holder: holder, address: address,
            expires: now.addingTimeInterval(Self.idleLifetime))
        return state.withLock { state -> Session? in
            state.sessions = state.sessions.filter { $0.value.expires > now }
            let sameKey = state.sessions.values.filter { $0.key == key }
            if sameKey.count >= Self.sessionsPerKey, let oldest = sameKey.min(by: { $0.expires < $1.expires }) {
                state.sessions[oldest.id] = nil
            }
            guard state.sessions.count < Self.capacity,
                state.sessions.values.count(where: { $0.address == address }) < Self.sessionsPerAddress
            else { return nil }
            state.sessions[session.id] = session
            return session
        }
    }

    /// Whether session `id` is open (without extending its lifetime, as a live view checks it).
    func isOpen(id: String) -> Bool {
        let now = clock.currentDate
        return state.withLock { $0.sessions[id].map { $0.expires > now } ?? false }
    }

    /// Records whom a session's key speaks for now (its app renamed, say).
    func update(_ session: Session) {
        state.withLock { state in
            guard state.sessions[session.id] != nil else { return }
            state.sessions[session.id]?.holder = session.holder
        }
    }

    /// The live session with identifier `id`, its lifetime extended.
    func session(id: String) -> Session? {
        let now = clock.currentDate
        return state.withLock { state in
            guard var session = state.sessions[id] else { return nil }
            guard session.expires > now else {
                state.sessions[id] = nil
                return nil
            }
            session.expires = now.addingTimeInterval(Self.idleLifetime)
            state.sessions[id] = session
            return session
        }
    }

    /// Ends a session.
    func close(id: String) {
        _ = state.withLock { $0.sessions.removeValue(forKey: id) }
    }

    /// A code that signs in once with `key`, for a link printed on the terminal.
    func makeLoginCode(for key: String) -> String {
        let now = clock.currentDate
        let code = Self.random()
        state.withLock { state in
            state.codes = state.codes.filter { $0.value.expires > now }
            state.codes[code] = (key, now.addingTimeInterval(Self.codeLifetime))
        }
        return code
    }

    /// The key behind `code`; the code is spent whether or not it was still valid.
    func redeem(code: String) -> String? {
        let now = clock.currentDate
        return state.withLock { state in
            guard let entry = state.codes.removeValue(forKey: code), entry.expires > now else { return nil }
            return entry.key
        }
    }

    /// Counts a live view opened for session `id`.
    ///
    /// - Returns: `false` when the session has ``streamsPerSession`` open already (nothing is counted then).
    func beginStream(sessionID id: String) -> Bool {
        state.withLock { state in
            let open = state.streams[id, default: 0]
            guard open < Self.streamsPerSession else { return false }
            state.streams[id] = open + 1
            return true
        }
    }

    /// Counts a live view of session `id` closed.
    func endStream(sessionID id: String) {
        state.withLock { state in
            let open = state.streams[id, default: 1] - 1
            state.streams[id] = open > 0 ? open : nil
        }
    }

    /// How long until another sign-in may be tried, when the last minute's failures reached
    /// ``failedSignInsPerMinute``; `nil` when one may be tried now.
    func signInWait(from address: String) -> TimeInterval? {
        let now = clock.currentDate
        return state.withLock { state in
            var failures = state.failedSignIns[address] ?? []
            failures.removeAll { now.timeIntervalSince($0) >= 60 }
            state.failedSignIns[address] = failures.isEmpty ? nil : failures
            guard failures.count >= Self.failedSignInsPerMinute, let first = failures.first else { return nil }
            return 60 - now.timeIntervalSince(first)
        }
    }

    /// Counts a failed sign-in (a wrong key or a spent login code) from `address`.
    func recordFailedSignIn(from address: String) {
        let now = clock.currentDate
        return state.withLock { state in
            if state.failedSignIns[address] == nil, state.failedSignIns.count >= Self.failingAddressCapacity {
                state.failedSignIns = state.failedSignIns.filter {
                    $0.value.contains { now.timeIntervalSince($0) < 60 }
                }
                if state.failedSignIns.count >= Self.failingAddressCapacity,
                    let stalest = state.failedSignIns.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })
                {
                    state.failedSignIns[stalest.key] = nil
                }
            }
            state.failedSignIns[address, default: []].append(now)
        }
    }

    /// 32 random bytes, base64url.
    private static func random() -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
