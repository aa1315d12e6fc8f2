import Foundation
import PushProvider
import Synchronization
import Testing

@testable import HeraldConsole

@Suite("The console's sessions keep the time they are given")
struct ConsoleSessionsTests {
    /// A time the test moves.
    final class Time: Sendable {
        private let now = Mutex(Date(timeIntervalSince1970: 2_000_000_000))
        func read() -> Date { now.withLock { $0 } }
        func move(by seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    @Test("a session lives 12 hours from its last use; a login code 15 minutes, once")
    func lifetimes() {
        let time = Time()
        let sessions = ConsoleSessions(now: { time.read() })
        let session = sessions.open(key: "admin", holder: .admin)
        time.move(by: 11 * 3600)
        #expect(sessions.session(id: session.id) != nil, "used after 11 hours: 12 more from now")
        time.move(by: 11 * 3600)
        #expect(sessions.session(id: session.id) != nil)
        time.move(by: 12 * 3600 + 1)
        #expect(sessions.session(id: session.id) == nil, "12 hours without use: gone")
        let code = sessions.makeLoginCode(for: "admin")
        time.move(by: 14 * 60)
        #expect(sessions.redeem(code: code) == "admin")
        #expect(sessions.redeem(code: code) == nil, "spent")
        let late = sessions.makeLoginCode(for: "admin")
        time.move(by: 15 * 60 + 1)
        #expect(sessions.redeem(code: late) == nil, "lapsed")
    }

    @Test("an address with too many failed sign-ins waits until a minute after its first, by the given time")
    func signInLimit() throws {
        let time = Time()
        let sessions = ConsoleSessions(now: { time.read() })
        for _ in 0..<ConsoleSessions.failedSignInsPerMinute { sessions.recordFailedSignIn(from: "10.0.0.1") }
        let wait = try #require(sessions.signInWait(from: "10.0.0.1"))
        #expect(wait == 60)
        #expect(sessions.signInWait(from: "10.0.0.2") == nil, "another address is not held back")
        time.move(by: 45)
        #expect(sessions.signInWait(from: "10.0.0.1") == 15)
        time.move(by: 15)
        #expect(sessions.signInWait(from: "10.0.0.1") == nil)
    }
}
