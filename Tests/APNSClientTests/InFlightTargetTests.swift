import NIOCore
import Testing

@testable import APNSClient

@Suite("How many streams a connection keeps in flight")
struct InFlightTargetTests {
    /// Feeds one window of `count` answers, each `latency` after its request, then evaluates at the window's end.
    private func window(
        _ target: inout InFlightTarget, start: NIODeadline, count: Int, latency: TimeAmount, length: TimeAmount,
        limit: Int
    ) -> Int {
        for _ in 0..<count { target.answered(latency: latency) }
        return target.evaluate(at: start + length, limit: limit)
    }

    @Test("far away and held back by its target, the target grows each window up to the server's limit")
    func growsToTheLimit() {
        let start = NIODeadline.uptimeNanoseconds(0)
        var target = InFlightTarget(now: start)
        #expect(target.target == InFlightTarget.floor)
        // 50 ms away with 100 in flight: 2,000 answers a second.
        var now = start
        var seen: [Int] = []
        for _ in 0..<4 {
            let inFlight = target.target
            let length = TimeAmount.milliseconds(100)
            let count = inFlight * 2  // two round trips of answers in 100 ms
            seen.append(
                window(&target, start: now, count: count, latency: .milliseconds(50), length: length, limit: 1000))
            now = now + length
        }
        #expect(seen == [400, 1000, 1000, 1000])
    }

    @Test("a PING that measured a far round trip sets the target to the server's limit at once, following its changes")
    func farFromTheStart() {
        let start = NIODeadline.uptimeNanoseconds(0)
        var target = InFlightTarget(now: start)
        target.roundTripMeasured(.microseconds(300))
        #expect(target.target == InFlightTarget.floor, "a local round trip changes nothing")
        target.roundTripMeasured(.milliseconds(5))
        #expect(target.target == InFlightTarget.floor, "nor does a loopback PING answered late by a busy server")
        target.roundTripMeasured(.milliseconds(50))
        #expect(target.target > 1000, "until the next answer, the server's limit alone decides")
        #expect(
            window(&target, start: start, count: 1, latency: .milliseconds(50), length: .milliseconds(150), limit: 1)
                == 1, "one stream until the provider token is accepted")
        #expect(
            window(&target, start: start, count: 1, latency: .milliseconds(50), length: .milliseconds(1), limit: 1000)
                == 1000, "the whole limit at once, however few answers came yet")
        #expect(
            window(&target, start: start, count: 9, latency: .milliseconds(50), length: .milliseconds(1), limit: 0) == 1
        )
        #expect(
            window(&target, start: start, count: 9, latency: .milliseconds(50), length: .milliseconds(1), limit: 500)
                == 500, "a lowered limit is followed")
        #expect(
            window(&target, start: start, count: 9, latency: .microseconds(500), length: .milliseconds(60), limit: 1000)
                == InFlightTarget.floor, "an answer in half a millisecond: the server is near after all")
    }

    @Test("on loopback the floor holds whatever the rate: more streams would only cost bookkeeping")
    func loopbackStaysAtTheFloor() {
        let start = NIODeadline.uptimeNanoseconds(0)
        var target = InFlightTarget(now: start)
        let settled = window(
            &target, start: start, count: 4000, latency: .microseconds(900), length: .milliseconds(100), limit: 1000)
        #expect(settled == InFlightTarget.floor)
    }

    @Test("a server that lowers its limit mid-flight, or advertises 0, caps the target; one past 2^31 does not trap")
    func followsTheLimit() {
        let start = NIODeadline.uptimeNanoseconds(0)
        var target = InFlightTarget(now: start)
        #expect(
            window(&target, start: start, count: 2000, latency: .milliseconds(100), length: .seconds(1), limit: 50)
                == 50)
        let next = start + .seconds(1)
        #expect(
            window(&target, start: next, count: 2000, latency: .milliseconds(100), length: .seconds(1), limit: 0) == 1)
        let later = next + .seconds(1)
        let huge = window(
            &target, start: later, count: 1_000_000, latency: .seconds(500), length: .seconds(1000),
            limit: Int(Int32.max) + 1)
        #expect(huge > InFlightTarget.floor)
    }

    @Test("a round trip that jumps from 1 ms to 500 ms raises the target from the floor in one window")
    func roundTripJump() {
        let start = NIODeadline.uptimeNanoseconds(0)
        var target = InFlightTarget(now: start)
        #expect(
            window(
                &target, start: start, count: 5000, latency: .milliseconds(1), length: .milliseconds(100), limit: 1000)
                == InFlightTarget.floor)
        // 100 in flight, 500 ms away: 200 answers a second.
        let next = start + .milliseconds(100)
        #expect(
            window(&target, start: next, count: 200, latency: .milliseconds(500), length: .seconds(1), limit: 1000)
                == 400)
    }

    @Test("no window ends before it holds an answer and lasts a round trip and a quarter")
    func windowLength() {
        let start = NIODeadline.uptimeNanoseconds(0)
        var target = InFlightTarget(now: start)
        #expect(target.evaluate(at: start + .seconds(10), limit: 1000) == InFlightTarget.floor)
        for _ in 0..<1000 { target.answered(latency: .milliseconds(100)) }
        #expect(target.evaluate(at: start + .milliseconds(110), limit: 1000) == InFlightTarget.floor)
        #expect(target.evaluate(at: start + .milliseconds(130), limit: 1000) == 1000)
    }
}
