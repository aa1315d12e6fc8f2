import Foundation
import HeraldTime
import PushProvider
import Testing

@testable import HeraldConsole

@Suite("The console's sessions keep the time they are given")
struct ConsoleSessionsTests {
    @Test("a session lives 12 hours from its last use; a login code 15 minutes, once")
    func lifetimes() {
        let time = ManualClock(start: Date(timeIntervalSince1970: 2_000_000_000))
        let sessions = ConsoleSessions(clock: time)
        let session = sessions.open(key: "admin", holder: .admin)
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
