import NIOCore
import Testing

@testable import APNSClient

/// The client's keep-alive on its own: time is whatever the test says.
@Suite("KeepAlive: a quiet connection is pinged, an unanswered PING ends it")
struct KeepAliveTests {
    @Test("quiet for the interval: one PING; answered: quiet again; unanswered past the timeout: close")
    func pingAndTimeout() {
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var keepAlive = KeepAlive(interval: .seconds(60), timeout: .seconds(10), now: start)
        #expect(keepAlive.tick(at: start + .seconds(59), canPing: true) == .none)
        #expect(keepAlive.tick(at: start + .seconds(61), canPing: false) == .none, "no PING while not open")
        #expect(keepAlive.tick(at: start + .seconds(61), canPing: true) == .ping)
        #expect(keepAlive.tick(at: start + .seconds(65), canPing: true) == .none, "one PING at a time")
        keepAlive.pingAnswered()
        keepAlive.read(at: start + .seconds(65))
        #expect(keepAlive.tick(at: start + .seconds(100), canPing: true) == .none, "a read restarts the interval")
        #expect(keepAlive.tick(at: start + .seconds(126), canPing: true) == .ping)
        #expect(keepAlive.tick(at: start + .seconds(136), canPing: true) == .none)
        guard case .close(let reason) = keepAlive.tick(at: start + .seconds(137), canPing: true) else {
            Issue.record("an unanswered PING past the timeout must close the connection")
            return
        }
        #expect(reason.contains("PING"))
    }
}
