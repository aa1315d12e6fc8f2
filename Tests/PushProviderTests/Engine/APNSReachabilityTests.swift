import Foundation
import Testing

@testable import PushProvider

/// The app-level pause while APNs cannot be reached, as a state of its own: who may send, and when the next probe is.
@Suite("APNs reachability: one probe per backoff step")
struct APNSReachabilityTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("reachable sends everything; a failure pauses the app; one probe when due; success ends the outage")
    func probes() {
        let reachability = APNSReachability()
        #expect(reachability.permit(appID: "a", now: start) == .all)
        let first = reachability.failed(appID: "a", reason: "connection refused", now: start)
        #expect(first > start && first <= start.addingTimeInterval(APNSReachability.firstWait))
        #expect(reachability.permit(appID: "b", now: start) == .all, "another app is not paused")
        #expect(reachability.permit(appID: "a", now: start) == .waitUntil(first))
        #expect(reachability.permit(appID: "a", now: first) == .probe)
        // While the probe is out, nobody else goes, and nobody is told a time already past; each is told when it went.
        guard case .awaitProbe(let later, let sentAt) = reachability.permit(appID: "a", now: first) else {
            Issue.record("a second probe went out")
            return
        }
        #expect(later > first && sentAt == first)
        #expect(reachability.reached(appID: "a")?.since == start)
        #expect(reachability.permit(appID: "a", now: first) == .all)
        #expect(reachability.outage(appID: "a") == nil)
    }

    @Test("the wait doubles from 1 s to at most 8 s, a fifth less at random at most; the first failure's time stays")
    func backoff() {
        let reachability = APNSReachability()
        var now = start
        var waits: [TimeInterval] = []
        for _ in 0..<8 {
            let next = reachability.failed(appID: "a", reason: "DNS", now: now)
            waits.append(next.timeIntervalSince(now))
            now = next
        }
        let full: [TimeInterval] = [1, 2, 4, 8, 8, 8, 8, 8]
        for (wait, expected) in zip(waits, full) {
            #expect(wait <= expected && wait >= expected * 0.8, "\(waits)")
        }
        #expect(reachability.outage(appID: "a")?.since == start)
        #expect(reachability.outage(appID: "a")?.reason == "DNS")
    }

    @Test("a probe that ended without an answer either way lets the next one go")
    func abandonedProbe() {
        let reachability = APNSReachability()
        let next = reachability.failed(appID: "a", reason: "TLS", now: start)
        #expect(reachability.permit(appID: "a", now: next) == .probe)
        reachability.abandonProbe(appID: "a")
        #expect(reachability.permit(appID: "a", now: next) == .probe)
    }
}
