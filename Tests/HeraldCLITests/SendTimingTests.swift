import Testing

@testable import HeraldCLI

@Suite("Where a send's time went")
struct SendTimingTests {
    /// A send of `count` notifications over `seconds`, each `latency` in flight, with a PING of `ping`.
    private func timing(ping: Duration?, count: Int, latency: Duration, limit: Int = 1000, connections: Int = 1)
        -> SendTiming
    {
        var timing = SendTiming()
        if let ping { timing.measured(ping) }
        for _ in 0..<count { timing.answered(after: latency) }
        timing.streamsAllowed(limit)
        timing.connectionsOpen(connections)
        return timing
    }

    @Test("a local round trip sets no limit: the processors set the rate")
    func local() throws {
        let local = timing(ping: .microseconds(400), count: 10_000, latency: .milliseconds(3))
        #expect(local.limitPerSecond == nil)
        #expect(try #require(local.bottleneck(rate: 40_000, seconds: 0.25)).contains("round trip is local"))
    }

    @Test("far, at the limit: more connections; far with few streams busy: herald; the PING wins over answers")
    func far() throws {
        let full = timing(ping: .milliseconds(50), count: 18_000, latency: .milliseconds(52), connections: 2)
        #expect(full.roundTrip == 0.05)
        #expect(full.limitPerSecond == 40_000)
        #expect(try #require(full.bottleneck(rate: 36_000, seconds: 0.5)).contains("--connections"))
        let starved = timing(ping: .milliseconds(50), count: 1000, latency: .milliseconds(50))
        #expect(abs(starved.averageInFlight(over: 1) - 50) < 0.001, "Little's law: 1,000 × 50 ms over 1 s")
        #expect(try #require(starved.bottleneck(rate: 1000, seconds: 1)).contains("herald kept 5%"))
        let noPing = timing(ping: nil, count: 10, latency: .milliseconds(80))
        #expect(noPing.roundTrip == 0.08, "without a PING, the fastest answer")
        #expect(SendTiming().bottleneck(rate: 0, seconds: 1) == nil, "nothing answered, nothing to say")
    }
}
