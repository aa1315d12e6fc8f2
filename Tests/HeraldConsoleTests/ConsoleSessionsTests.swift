import Foundation
import HeraldTime
import PushProvider
import Testing

@testable import HeraldConsole

/// The console's sessions, codes and failed sign-ins, kept in a provider's database (SQLite here) and judged by the
/// provider's clock.
@Suite("The console's sessions keep the time they are given, in the provider's database")
struct ConsoleSessionsTests {
    /// Sessions on a new provider's database, by `time`.
    static func withSessions(
        _ body: (ConsoleSessions, ManualClock, PushProviderService.Configuration) async throws -> Void
    ) async throws {
        let time = ManualClock(start: Date(timeIntervalSince1970: 2_000_000_000))
        var configuration = PushProviderService.Configuration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID())"))
        configuration.clock = time
        defer { try? FileManager.default.removeItem(at: configuration.dataDirectory) }
        let provider = try await PushProviderService(configuration: configuration)
        let sessions = ConsoleSessions(clock: time)
        sessions.attach(to: provider)
        try await body(sessions, time, configuration)
    }

    @Test("a session lives 12 hours from its last use; a login code 15 minutes, once")
    func lifetimes() async throws {
        try await Self.withSessions { sessions, time, _ in
            let session = try #require(try await sessions.open(key: "admin", holder: .admin, from: "10.0.0.1"))
            time.advance(by: .seconds(11 * 3600))
            #expect(try await sessions.session(id: session.id) != nil, "used after 11 hours: 12 more from now")
            time.advance(by: .seconds(11 * 3600))
            #expect(try await sessions.session(id: session.id)?.key == "admin")
            time.advance(by: .seconds(12 * 3600 + 1))
            #expect(try await sessions.session(id: session.id) == nil, "12 hours without use: gone")
            let code = try await sessions.makeLoginCode(for: "admin")
            time.advance(by: .seconds(14 * 60))
            #expect(try await sessions.redeem(code: code) == "admin")
            #expect(try await sessions.redeem(code: code) == nil, "spent")
            let late = try await sessions.makeLoginCode(for: "admin")
            time.advance(by: .seconds(15 * 60 + 1))
            #expect(try await sessions.redeem(code: late) == nil, "lapsed")
        }
    }

    @Test("sessions are capped per key (its own oldest ends) and per address (refused), never one global cap")
    func caps() async throws {
        try await Self.withSessions { sessions, time, _ in
            let admin = try #require(try await sessions.open(key: "admin", holder: .admin, from: "10.0.0.1"))
            // One key signing in again and again from many addresses ends only its own sessions.
            var first: [String] = []
            for index in 0..<(ConsoleSessions.sessionsPerKey + 5) {
                time.advance(by: .seconds(1))
                let session = try #require(
                    try await sessions.open(key: "sk_a", holder: .admin, from: "10.1.\(index / 250).\(index)"))
                if index < 5 { first.append(session.id) }
            }
            #expect(try await sessions.session(id: admin.id) != nil, "another key's session is never signed out")
            for id in first { #expect(try await sessions.session(id: id) == nil, "the key's own oldest five ended") }
            // One address: refused past its cap; others still sign in.
            for index in 0..<(ConsoleSessions.sessionsPerAddress - 1) {
                #expect(try await sessions.open(key: "sk_\(index)", holder: .admin, from: "10.0.0.1") != nil)
            }
            #expect(try await sessions.open(key: "sk_x", holder: .admin, from: "10.0.0.1") == nil)
            #expect(try await sessions.open(key: "sk_x", holder: .admin, from: "10.0.0.2") != nil)
            #expect(try await sessions.session(id: admin.id) != nil)
            // Sessions that lapsed free their address.
            time.advance(by: .seconds(ConsoleSessions.idleLifetime + 1))
            #expect(try await sessions.open(key: "sk_x", holder: .admin, from: "10.0.0.1") != nil)
        }
    }

    @Test("an address with too many failed sign-ins waits until a minute after its first, by the given time")
    func signInLimit() async throws {
        try await Self.withSessions { sessions, time, _ in
            for _ in 0..<ConsoleSessions.failedSignInsPerMinute {
                try await sessions.recordFailedSignIn(from: "10.0.0.1")
            }
            let wait = try #require(try await sessions.signInWait(from: "10.0.0.1"))
            #expect(wait == 60)
            #expect(try await sessions.signInWait(from: "10.0.0.2") == nil, "another address is not held back")
            time.advance(by: .seconds(45))
            #expect(try await sessions.signInWait(from: "10.0.0.1") == 15)
            time.advance(by: .seconds(15))
            #expect(try await sessions.signInWait(from: "10.0.0.1") == nil)
        }
    }

    @Test("two providers on one database are one console: a session, a code and failed sign-ins are known to both")
    func sharedByProviders() async throws {
        try await Self.withSessions { sessions, time, configuration in
            // A second provider on the same database (and master key), as a second `herald serve` would be.
            let other = ConsoleSessions(clock: time)
            other.attach(to: try await PushProviderService(configuration: configuration))
            let session = try #require(try await sessions.open(key: "admin", holder: .admin, from: "10.0.0.1"))
            let seen = try #require(try await other.session(id: session.id), "signed in through one, known to both")
            #expect(seen.key == "admin" && seen.csrfToken == session.csrfToken)
            try await other.close(id: session.id)
            #expect(try await sessions.isOpen(id: session.id) == false, "signed out on one, ended on both")
            let code = try await sessions.makeLoginCode(for: "admin")
            #expect(try await other.redeem(code: code) == "admin")
            #expect(try await sessions.redeem(code: code) == nil, "spent on the other")
            for _ in 0..<ConsoleSessions.failedSignInsPerMinute { try await other.recordFailedSignIn(from: "10.9.9.9") }
            #expect(try await sessions.signInWait(from: "10.9.9.9") != nil, "failures on one count on both")
        }
    }
}
