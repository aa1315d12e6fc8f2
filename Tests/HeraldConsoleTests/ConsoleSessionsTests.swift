import Foundation
import HeraldTime
import PushProvider
import Testing

@testable import HeraldConsole

@Suite("The console's sessions keep the time they are given")
struct ConsoleSessionsTests {
    @Test("a session lives 12 hours from its last use; a login code 15 minutes, once")
    func lifetimes() throws {
        let time = ManualClock(start: Date(timeIntervalSince1970: 2_000_000_000))
        let sessions = ConsoleSessions(clock: time)
        let session = try #require(sessions.open(key: "admin", holder: .admin, from: "10.0.0.1"))
        time.advance(by: .seconds(11 * 3600))
        #expect(sessions.session(id: session.id) != nil, "used after 11 hours: 12 more from now")
        time.advance(by: .seconds(11 * 3600))
        #expect(sessions.session(id: session.id) != nil)
        time.advance(by: .seconds(12 * 3600 + 1))
        #expect(sessions.session(id: session.id) == nil, "12 hours without use: gone")
        let code = sessions.makeLoginCode(for: "admin")
        time.advance(by: .seconds(14 * 60))
        #expect(sessions.redeem(code: code) == "admin")
        #expect(sessions.redeem(code: code) == nil, "spent")
        let late = sessions.makeLoginCode(for: "admin")
        time.advance(by: .seconds(15 * 60 + 1))
        #expect(sessions.redeem(code: late) == nil, "lapsed")
    }

    @Test("sessions are capped per key (its own oldest ends) and per address (refused), never one global cap")
    func caps() throws {
        let time = ManualClock(start: Date(timeIntervalSince1970: 2_000_000_000))
        let sessions = ConsoleSessions(clock: time)
        let admin = try #require(sessions.open(key: "admin", holder: .admin, from: "10.0.0.1"))
        // One key signing in again and again from many addresses ends only its own sessions.
        var first: [String] = []
        for index in 0..<(ConsoleSessions.sessionsPerKey + 5) {
            time.advance(by: .seconds(1))
            let session = try #require(sessions.open(key: "sk_a", holder: .admin, from: "10.1.\(index / 250).\(index)"))
            if index < 5 { first.append(session.id) }
        }
        #expect(sessions.session(id: admin.id) != nil, "another key's session is never signed out")
        #expect(first.allSatisfy { sessions.session(id: $0) == nil }, "the key's own oldest five ended")
        // One address: refused past its cap; others still sign in.
        for index in 0..<(ConsoleSessions.sessionsPerAddress - 1) {
            #expect(sessions.open(key: "sk_\(index)", holder: .admin, from: "10.0.0.1") != nil)
        }
        #expect(sessions.open(key: "sk_x", holder: .admin, from: "10.0.0.1") == nil)
        #expect(sessions.open(key: "sk_x", holder: .admin, from: "10.0.0.2") != nil)
        #expect(sessions.session(id: admin.id) != nil)
        // Sessions that lapsed free their address.
        time.advance(by: .seconds(ConsoleSessions.idleLifetime + 1))
        #expect(sessions.open(key: "sk_x", holder: .admin, from: "10.0.0.1") != nil)
    }

    @Test("an address with too many failed sign-ins waits until a minute after its first, by the given time")
    func signInLimit() throws {
        let time = ManualClock(start: Date(timeIntervalSince1970: 2_000_000_000))
        let sessions = ConsoleSessions(clock: time)
        for _ in 0..<ConsoleSessions.failedSignInsPerMinute { sessions.recordFailedSignIn(from: "10.0.0.1") }
        let wait = try #require(sessions.signInWait(from: "10.0.0.1"))
        #expect(wait == 60)
        #expect(sessions.signInWait(from: "10.0.0.2") == nil, "another address is not held back")
        time.advance(by: .seconds(45))
        #expect(sessions.signInWait(from: "10.0.0.1") == 15)
        time.advance(by: .seconds(15))
        #expect(sessions.signInWait(from: "10.0.0.1") == nil)
    }
}
