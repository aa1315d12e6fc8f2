import APNSClient
import APNSCore
import Foundation
import HeraldTime
import ProviderStorage
import Synchronization
import Testing

@testable import PushProvider

/// The delivery engine alone: leasing, APNs' answers, retries, outages, cancellation, leases that run out, batches of
/// several apps and a store that fails, on an in-memory queue and a manual clock (``EngineHarness``).
@Suite("The delivery engine, alone")
struct DeliveryEngineTests {
    @Test("every leased delivery is sent once, with the apns-id its number makes, and recorded accepted")
    func sendsAndRecords() async throws {
        let h = EngineHarness()
        h.queue.add(app: "a")
        let ids = h.queue.add(notification: "n1", app: "a", tokens: ["t1", "t2", "t3"], due: h.now)
        try await h.running {
            h.engine.notify()
            try await h.until("three accepted") { h.all(of: "n1", are: .accepted) }
        }
        let maker = DeliveryMessageID.Maker(notificationID: "n1", key: h.queue.messageKey)
        #expect(h.senders.sent.map(\.token).sorted() == ["t1", "t2", "t3"])
        #expect(Set(h.senders.sent.compactMap(\.apnsID)) == Set(ids.map { maker.messageID(for: $0).string }))
        #expect(h.rows(of: "n1").map(\.delivery.attempts) == [1, 1, 1])
    }

    @Test("410 and BadDeviceToken retire the token, other 4xx are final, 429, 503 and no answer retry in 2 s")
    func answers() async throws {
        let h = EngineHarness()
        h.queue.add(app: "a")
        let tokens = ["ok", "gone", "bad", "big", "busy", "down", "silent"]
        h.queue.add(notification: "n1", app: "a", tokens: tokens, due: h.now)
        h.senders.answer { _, token in
            switch token {
            case "gone": .refused(410, .unregistered)
            case "bad": .refused(400, .badDeviceToken)
            case "big": .refused(413, APNSReason(rawValue: "PayloadTooLarge"))
            case "busy": .refused(429, .tooManyRequests)
            case "down": .refused(503, .serviceUnavailable)
            case "silent": .refused(nil, APNSReason(rawValue: "Timeout"))
            default: .accepted(APNSAcceptance(apnsID: UUID().uuidString))
            }
        }
        try await h.running {
            h.engine.notify()
            try await h.until("every answer recorded") {
                h.rows(of: "n1").allSatisfy { $0.state != .leased && ($0.state != .queued || $0.reason != nil) }
            }
        }
        let rows = Dictionary(uniqueKeysWithValues: h.rows(of: "n1").map { ($0.delivery.address.deviceToken!, $0) })
        #expect(rows["ok"]?.state == .accepted)
        #expect(rows["gone"]?.state == .rejected && rows["gone"]?.deactivated == "gone")
        #expect(rows["bad"]?.state == .rejected && rows["bad"]?.deactivated == "bad")
        #expect(rows["big"]?.state == .rejected && rows["big"]?.deactivated == nil && rows["big"]?.status == 413)
        for token in ["busy", "down", "silent"] {
            #expect(rows[token]?.state == .queued, "\(token)")
            #expect(rows[token]?.notBefore == h.start.addingTimeInterval(2), "\(token): 2^1 s after the first attempt")
        }
        #expect(rows["down"]?.reason == "ServiceUnavailable" && rows["silent"]?.reason == "Timeout")
    }

    @Test("a temporary refusal is sent again after 2 s, then 4 s, and given up after the last attempt")
    func backoffThenGiveUp() async throws {
        let h = EngineHarness(maximumAttempts: 3)
        h.queue.add(app: "a")
        let id = h.queue.add(notification: "n1", app: "a", tokens: ["down"], due: h.now)[0]
        h.senders.answer { _, _ in .refused(503, .serviceUnavailable) }
        try await h.running {
            h.engine.notify()
            try await h.until("first refusal") { h.queue.row(id)?.reason != nil && h.queue.row(id)?.state == .queued }
            #expect(h.queue.row(id)?.notBefore == h.start.addingTimeInterval(2))
            h.advance(by: .seconds(2))
            try await h.until("second refusal") {
                h.queue.row(id)?.delivery.attempts == 2 && h.queue.row(id)?.state == .queued
            }
            #expect(h.queue.row(id)?.notBefore == h.start.addingTimeInterval(2 + 4))
            h.advance(by: .seconds(4))
            try await h.until("given up") { h.queue.row(id)?.state == .rejected }
        }
        #expect(h.queue.row(id)?.status == 503 && h.queue.row(id)?.reason == "ServiceUnavailable")
        #expect(h.senders.sent.count == 3, "three attempts, no more")
    }

    @Test(
        "APNs unreachable: the batch waits without spending attempts, one probe per step, the one that connects wakes the rest"
    )
    func outage() async throws {
        let h = EngineHarness()
        h.queue.add(app: "a")
        let tokens = (1...5).map { "t\($0)" }
        h.queue.add(notification: "n1", app: "a", tokens: tokens, due: h.now)
        h.senders.answer { _, _ in .refused(nil, .connectionFailed) }
        let waiting = { (row: InMemoryDeliveryQueue.Row) in
            row.state == .queued && row.reason == APNSReachability.unreachableReason
        }
        try await h.running {
            h.engine.notify()
            try await h.until("all five waiting") { h.rows(of: "n1").allSatisfy(waiting) }
            let rows = h.rows(of: "n1")
            #expect(rows.allSatisfy { $0.delivery.attempts == 0 }, "no attempt spent on a connection never made")
            let probe = rows.filter { $0.notBefore <= h.start.addingTimeInterval(APNSReachability.firstWait) }
            #expect(probe.count == 1, "one comes back for the next probe")
            #expect(rows.filter { $0.notBefore >= h.start.addingTimeInterval(APNSReachability.parking) }.count == 4)
            #expect(h.engine.reachability.outage(appID: "a") != nil)

            h.advance(by: .seconds(1))
            // The first send is of one (the app's credentials not yet answered), then one probe.
            try await h.until("a probe of one") { h.senders.sends == [1, 1] }
            try await h.until("the probe waits again") { h.rows(of: "n1").allSatisfy(waiting) }
            #expect(h.rows(of: "n1").allSatisfy { $0.delivery.attempts == 0 })

            h.senders.answer { _, _ in .accepted(APNSAcceptance(apnsID: UUID().uuidString)) }
            h.advance(by: .seconds(2))
            try await h.until("all five accepted") { h.all(of: "n1", are: .accepted) }
        }
        #expect(h.senders.sent.map(\.token).sorted() == tokens, "each sent once, after APNs came back")
        #expect(h.rows(of: "n1").allSatisfy { $0.delivery.attempts == 1 })
        #expect(h.queue.calls.contains("wakeWaiting a"))
        #expect(h.engine.reachability.outage(appID: "a") == nil)
    }

    @Test("APNs unreachable for ten minutes: a probe per step of at most 8 s, nothing given up or spent; then all go")
    func tenMinuteOutage() async throws {
        let h = EngineHarness()
        h.queue.add(app: "a")
        let tokens = (1...5).map { "t\($0)" }
        h.queue.add(notification: "n1", app: "a", tokens: tokens, due: h.now)
        h.senders.answer { _, _ in .refused(nil, .connectionFailed) }
        let settled = { h.rows(of: "n1").allSatisfy { $0.state == .queued && $0.reason != nil } }
        try await h.running {
            h.engine.notify()
            try await h.until("all five waiting") { settled() }
            // 75 steps of the longest probe wait: a probe is due at every step; each must fail and wait again.
            for step in 1...75 {
                let probes = h.senders.sends.count
                h.advance(by: .seconds(APNSReachability.longestWait))
                try await h.until("the probe of step \(step)") { h.senders.sends.count > probes && settled() }
            }
            #expect(h.now.timeIntervalSince(h.start) >= 600)
            #expect(h.rows(of: "n1").allSatisfy { $0.delivery.attempts == 0 }, "no attempt spent in ten minutes")
            #expect(h.senders.sends.dropFirst().allSatisfy { $0 == 1 }, "after the first batch, probes of one")
            #expect(h.senders.sends.count <= 1 + 75 * 2, "one probe per step, not the queue again and again")

            h.senders.answer { _, _ in .accepted(APNSAcceptance(apnsID: UUID().uuidString)) }
            h.advance(by: .seconds(APNSReachability.longestWait))
            try await h.until("all five accepted") { h.all(of: "n1", are: .accepted) }
        }
        #expect(h.rows(of: "n1").allSatisfy { $0.state != .rejected })
        #expect(h.senders.sent.map(\.token).sorted() == tokens, "each sent once, after APNs came back")
        // Ten minutes and 75 probes are one outage in /metrics, not one per probe or per waiting delivery.
        let exported = h.engine.metrics.render()
        #expect(exported.contains("herald_provider_apns_outages_total 1\n"), "\(exported)")
    }

    @Test("a notification that expires before the next probe is given up, never sent late")
    func expiresWhileUnreachable() async throws {
        let h = EngineHarness()
        h.queue.add(app: "a")
        h.queue.add(notification: "n1", app: "a", tokens: ["t1", "t2"], due: h.now, expiration: 0)
        h.senders.answer { _, _ in .refused(nil, .connectionFailed) }
        try await h.running {
            h.engine.notify()
            try await h.until("given up") { h.all(of: "n1", are: .rejected) }
        }
        #expect(h.rows(of: "n1").allSatisfy { $0.reason == APNSReachability.unreachableReason && $0.status == nil })
    }

    @Test(
        "a now-or-never notification leased while another worker's probe is out waits for the probe's outcome, not given up on a guess; a probe out for a step does not hold it"
    )
    func nowOrNeverWaitsForTheProbeOut() async throws {
        let h = EngineHarness()
        h.queue.add(app: "a")
        let reachability = h.engine.reachability
        // Another worker's (or provider's) probe goes out now, after a failed connection.
        let probeAt = reachability.failed(appID: "a", reason: "connection refused", now: h.now)
        h.clock.advance(to: probeAt)
        #expect(reachability.permit(appID: "a", now: h.now) == .probe)
        let id = h.queue.add(notification: "n1", app: "a", tokens: ["t1"], due: h.now, expiration: 0)[0]
        try await h.running {
            h.engine.notify()
            try await h.until("n1 waits or is given up") {
                h.queue.row(id)?.reason == APNSReachability.unreachableReason
            }
            try #require(h.queue.row(id)?.state == .queued, "it waits for the probe's outcome")
            #expect(h.senders.sent.isEmpty)
            // The probe connects: APNs is back, and the now-or-never notification goes out.
            reachability.reached(appID: "a")
            h.advance(by: .seconds(APNSReachability.firstWait))
            try await h.until("n1 accepted") { h.all(of: "n1", are: .accepted) }

            // A probe that has been out for a whole step tells nothing soon: a now-or-never one is given up.
            let next = reachability.failed(appID: "a", reason: "connection refused", now: h.now)
            h.clock.advance(to: next)
            #expect(reachability.permit(appID: "a", now: h.now) == .probe)
            h.clock.advance(by: .seconds(APNSReachability.firstWait))
            h.queue.add(notification: "n2", app: "a", tokens: ["t2"], due: h.now, expiration: 0)
            h.engine.notify()
            try await h.until("n2 given up") { h.all(of: "n2", are: .rejected) }
        }
        #expect(h.senders.sent.map(\.token) == ["t1"])
        #expect(h.rows(of: "n2").allSatisfy { $0.reason == APNSReachability.unreachableReason })
    }

    @Test("a cancelled notification's leased deliveries are withheld and cancelled; the rest of the batch goes")
    func cancelled() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        h.queue.add(notification: "n1", app: "a", tokens: ["x1", "x2", "x3"], due: h.now)
        h.queue.add(notification: "n2", app: "a", tokens: ["y1", "y2"], due: h.now)
        h.engine.stopSending(notificationID: "n1")
        try await h.running {
            h.engine.notify()
            try await h.until("n2 sent, n1 cancelled") {
                h.all(of: "n2", are: .accepted) && h.all(of: "n1", are: .cancelled)
            }
        }
        #expect(h.senders.sent.map(\.token).sorted() == ["y1", "y2"])
        #expect(h.rows(of: "n1").allSatisfy { $0.delivery.attempts == 0 }, "a withheld delivery spent no attempt")
        #expect(h.queue.calls.contains("cancelNotification n1"))
    }

    @Test("a lease that runs out (its engine died) is taken back and sent, once")
    func expiredLease() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        let id = h.queue.add(notification: "n1", app: "a", tokens: ["t1"], due: h.now)[0]
        h.queue.lease(id, to: "worker-dead", until: h.now.addingTimeInterval(10))
        try await h.running {
            // The lease watcher, the heartbeat and the worker all wait on the clock: nothing is due yet.
            await h.clock.waitForSleepers(3)
            #expect(h.senders.sent.isEmpty && h.queue.row(id)?.state == .leased)
            h.clock.advance(by: .seconds(16))
            try await h.until("sent by this engine") { h.queue.row(id)?.state == .accepted }
        }
        #expect(h.senders.sent.count == 1)
        #expect(h.queue.row(id)?.delivery.attempts == 2, "the dead engine's attempt counts")
    }

    @Test("one batch of three apps: each through its own sender; the paused app's wait, spending no attempt")
    func severalApps() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        h.queue.add(app: "b", pausedAt: h.now)
        h.queue.add(app: "c")
        h.queue.add(notification: "na", app: "a", tokens: ["a1", "a2"], due: h.now)
        h.queue.add(notification: "nb", app: "b", tokens: ["b1", "b2"], due: h.now)
        h.queue.add(notification: "nc", app: "c", tokens: ["c1", "c2"], due: h.now)
        try await h.running {
            h.engine.notify()
            try await h.until("a and c sent, b parked") {
                h.all(of: "na", are: .accepted) && h.all(of: "nc", are: .accepted)
                    && h.rows(of: "nb").allSatisfy { $0.state == .queued && $0.reason != nil }
            }
        }
        #expect(h.senders.sent.allSatisfy { $0.token.hasPrefix($0.appID) }, "every token went through its app's sender")
        #expect(h.senders.sent.count == 4)
        #expect(
            h.rows(of: "nb").allSatisfy {
                $0.reason == DeliveryVerdict.pausedReason && $0.notBefore == DeliveryEngine.pausedUntil
                    && $0.delivery.attempts == 0
            })
    }

    @Test("a write that fails is tried again while the leases hold, extending them; nothing is sent twice")
    func recordFails() async throws {
        let h = EngineHarness()
        h.queue.add(app: "a")
        h.queue.add(notification: "n1", app: "a", tokens: ["t1", "t2", "t3"], due: h.now)
        h.queue.fail(.record, times: 2)
        try await h.running {
            h.engine.notify()
            try await h.until("a failed write") { h.queue.failures(of: .record) == 1 }
            try await h.advance(by: .milliseconds(50), until: "written") { h.all(of: "n1", are: .accepted) }
        }
        #expect(h.queue.failures(of: .record) == 2)
        #expect(h.senders.sent.count == 3, "each sent once")
        #expect(h.queue.calls.filter { $0 == "extendLeases" }.count == 2)
    }

    @Test("a lease call that fails is tried again a second later, putting back what it may have taken")
    func leaseFails() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        h.queue.add(notification: "n1", app: "a", tokens: ["t1"], due: h.now)
        h.queue.fail(.lease, times: 1)
        try await h.running {
            try await h.until("a failed lease") { h.queue.failures(of: .lease) == 1 }
            try await h.advance(by: .seconds(1), until: "sent") { h.all(of: "n1", are: .accepted) }
        }
        #expect(h.queue.calls.contains("releaseLease"))
        #expect(h.senders.sent.count == 1)
    }

    @Test("an app the database cannot read: its deliveries wait as ProviderError; no token: the app pauses")
    func preparingAndSigningFail() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        h.queue.add(notification: "n1", app: "a", tokens: ["t1", "t2"], due: h.now)
        h.queue.fail(.app, times: 1)
        try await h.running {
            h.engine.notify()
            try await h.until("waiting") { h.rows(of: "n1").allSatisfy { $0.reason == "ProviderError" } }
            // The database failed: a wait, no attempt spent (before: a retry 2 s later, an attempt each time).
            #expect(
                h.rows(of: "n1").allSatisfy {
                    $0.state == .queued && $0.notBefore == h.start + DeliveryEngine.storageWait
                        && $0.delivery.attempts == 0
                })
            h.senders.failSigning(true)
            h.advance(by: .seconds(DeliveryEngine.storageWait))
            try await h.until("waiting for credentials") {
                h.rows(of: "n1").allSatisfy { $0.reason == "AppCredentials:InvalidProviderToken" }
            }
        }
        #expect(h.rows(of: "n1").allSatisfy { $0.state == .queued && $0.notBefore == DeliveryEngine.pausedUntil })
        #expect(h.queue.calls.contains("pauseForCredentials a InvalidProviderToken"))
        #expect(h.senders.sent.isEmpty)
    }

    @Test("a database failing a batch more times than a delivery has attempts: each a wait, then it is sent once")
    func storageOutageIsAWait() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        h.queue.add(notification: "n1", app: "a", tokens: ["t1"], due: h.now)
        let outages = DeliveryEngine.Settings().maximumAttempts + 2
        h.queue.fail(.app, times: outages)
        try await h.running {
            h.engine.notify()
            for outage in 1...outages {
                try await h.until("outage \(outage) waited") {
                    h.queue.failures(of: .app) == outage
                        && h.rows(of: "n1").allSatisfy { $0.state == .queued && $0.reason == "ProviderError" }
                }
                h.advance(by: .seconds(DeliveryEngine.storageWait))
            }
            try await h.until("accepted") { h.all(of: "n1", are: .accepted) }
        }
        // Before: the fifth failure gave it up (rejected ProviderError) with no APNs answer ever asked for.
        #expect(h.rows(of: "n1").map(\.delivery.attempts) == [1])
        #expect(h.senders.sent.map(\.token) == ["t1"])
    }

    @Test(
        "APNs refusing the app's credentials pauses the app at the first answer: nothing is rejected, no attempt is spent",
        arguments: ["InvalidProviderToken", "ExpiredProviderToken", "TopicDisallowed", "BadCertificateEnvironment"])
    func credentialRefusalPauses(reason: String) async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        h.queue.add(notification: "n1", app: "a", tokens: (0..<50).map { "t\($0)" }, due: h.now)
        h.senders.answer { _, _ in .refused(403, APNSReason(rawValue: reason)) }
        try await h.running {
            h.engine.notify()
            try await h.until("parked") {
                h.rows(of: "n1").allSatisfy { $0.state == .queued && $0.notBefore == DeliveryEngine.pausedUntil }
            }
        }
        #expect(h.rows(of: "n1").allSatisfy { $0.reason == "AppCredentials:\(reason)" && $0.delivery.attempts == 0 })
        #expect(h.queue.calls.filter { $0.hasPrefix("pauseForCredentials") } == ["pauseForCredentials a \(reason)"])
        #expect(try h.queue.app(id: "a")?.app.pauseReason == reason)
    }

    @Test("an app resumed between its pause for credentials and the parking of its deliveries: they are woken and sent")
    func resumedWhileParking() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        h.queue.add(notification: "n1", app: "a", tokens: (0..<5).map { "t\($0)" }, due: h.now)
        // The first answer refuses the topic, the rest are accepted (the operator fixed it and resumed).
        let refused = Mutex(false)
        h.senders.answer { _, _ in
            refused.withLock { done in
                defer { done = true }
                return done
                    ? .accepted(APNSAcceptance(apnsID: UUID().uuidString))
                    : .refused(403, APNSReason(rawValue: "TopicDisallowed"))
            }
        }
        h.queue.resumeRightAfterNextPause()
        try await h.running {
            h.engine.notify()
            try await h.until("every delivery sent") { h.rows(of: "n1").allSatisfy { $0.state == .accepted } }
        }
        #expect(h.queue.calls.contains("resumed a"))
        #expect(h.rows(of: "n1").allSatisfy { $0.delivery.attempts == 1 })
    }

    @Test("a delivery that waited past its notification's apns-expiration is not sent, and says so")
    func expiredWhileWaiting() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        // Expired a second ago, after waiting (a paused app, APNs unreachable): not sent; one without a time, sent.
        let expiration = Int(h.now.timeIntervalSince1970) - 1
        h.queue.add(notification: "old", app: "a", tokens: ["t1", "t2"], due: h.now, expiration: expiration)
        h.queue.add(notification: "now", app: "a", tokens: ["t3"], due: h.now, expiration: 0)
        try await h.running {
            h.engine.notify()
            try await h.until("answered") { h.all(of: "old", are: .rejected) && h.all(of: "now", are: .accepted) }
        }
        #expect(h.rows(of: "old").allSatisfy { $0.reason == PreparedBatch.expiredReason })
        #expect(h.senders.sent.map(\.token) == ["t3"])
    }

    @Test("stopping puts back, with their attempt, the leases the engine holds")
    func stopReleases() async throws {
        let h = EngineHarness(workers: 1)
        h.queue.add(app: "a")
        let id = h.queue.add(notification: "n1", app: "a", tokens: ["t1"], due: h.now.addingTimeInterval(3600))[0]
        h.queue.lease(id, to: h.engine.owner, until: h.now.addingTimeInterval(60))
        try await h.running {
            await h.clock.waitForSleepers(3)
        }
        #expect(h.queue.row(id)?.state == .queued)
        #expect(h.queue.row(id)?.delivery.attempts == 0)
    }
}
