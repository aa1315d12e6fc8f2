import APNSClient
import APNSCore
import Foundation
import Synchronization
import Testing

@testable import ProviderStorage
@testable import PushProvider

@Suite("The engine's steps alone: which deliveries a cancellation withholds, how a chunk's answers are counted")
struct EngineStepTests {
    let now = Date(timeIntervalSince1970: 2_000_000_000)

    func deliveries(_ notificationIDs: [String]) -> [LeasedDelivery] {
        notificationIDs.enumerated().map { index, notificationID in
            LeasedDelivery(
                id: Int64(index), notificationID: notificationID, appID: "app", address: .device(token: "ab"),
                attempts: 1)
        }
    }

    @Test("a run of cancelled deliveries at the start is withheld whole; otherwise the chunk ends before the next one")
    func cancelledRuns() {
        let cancelled = CancelledNotifications(keep: 120)
        #expect(cancelled.isEmpty)
        cancelled.add("gone", now: now)
        #expect(!cancelled.isEmpty)
        let batch = deliveries(["gone", "gone", "kept", "kept", "kept", "gone", "kept"])
        #expect(cancelled.run(in: batch, from: 0, limit: 10) == (2, 0))
        #expect(cancelled.run(in: batch, from: 2, limit: 10) == (0, 3))
        #expect(cancelled.run(in: batch, from: 2, limit: 2) == (0, 2))
        #expect(cancelled.run(in: batch, from: 5, limit: 10) == (1, 0))
        #expect(cancelled.run(in: batch, from: 6, limit: 10) == (0, 1))
        // The limit is never passed, even at 0.
        #expect(cancelled.run(in: batch, from: 2, limit: 0) == (0, 0))
    }

    @Test("a cancellation is forgotten once no lease of it can be left")
    func cancellationsAreForgotten() {
        let cancelled = CancelledNotifications(keep: 120)
        cancelled.add("old", now: now)
        cancelled.add("new", now: now.addingTimeInterval(121))
        let batch = deliveries(["old", "new"])
        #expect(cancelled.run(in: batch, from: 0, limit: 10) == (0, 1))
        #expect(cancelled.run(in: batch, from: 1, limit: 10) == (1, 0))
    }

    func rejected(_ status: Int?, _ reason: APNSReason, message: String = "") -> APNSResult {
        .rejected(APNSRejection(status: status, reason: reason, timestamp: nil, message: message))
    }

    @Test("a chunk's tally: answers counted once, 500 and 503 as trouble, unwritten and cancelled not recorded")
    func tally() {
        var tally = ChunkTally()
        let recorded = [
            tally.count(.accepted(APNSAcceptance(apnsID: "a", uniqueID: nil)), at: 0),
            tally.count(rejected(400, APNSReason(rawValue: "BadDeviceToken")), at: 1),
            tally.count(rejected(503, APNSReason(rawValue: "ServiceUnavailable")), at: 2),
            tally.count(rejected(500, APNSReason(rawValue: "InternalServerError")), at: 3),
            // No status: the client gave up (a timeout); recorded, but not an answer of APNs.
            tally.count(rejected(nil, APNSReason(rawValue: "DeadlineExceeded")), at: 4),
            tally.count(rejected(nil, .connectionFailed, message: "connection refused"), at: 5),
            tally.count(rejected(nil, .cancelled), at: 6),
            tally.count(rejected(nil, .connectionFailed, message: "no route to host"), at: 7),
        ]
        #expect(recorded == [true, true, true, true, true, false, false, false])
        #expect(tally.answered == 4)
        #expect(tally.troubled == 2)
        #expect(tally.unreached == [5, 7])
        #expect(tally.reason == "no route to host")
    }

    @Test("with three providers on the database a provider holds at most its share: a third of every worker's batch")
    func leaseShare() {
        let engine = EngineHarness(workers: 4).engine
        // Alone: every worker leases a whole batch, as before.
        #expect((0..<4).map { _ in engine.reserveLease() } == [5000, 5000, 5000, 5000])
        engine.release(20_000)
        // Three providers: 4 × 5,000 / 3 = 6,666 at most, the rest is the others' to lease.
        engine.liveProviders.store(3, ordering: .relaxed)
        #expect(engine.reserveLease() == 5000)
        #expect(engine.reserveLease() == 1666)
        #expect(engine.reserveLease() == 0)
        engine.release(5000)
        #expect(engine.reserveLease() == 5000)
        // Many providers: never less than a fan-out's range of 500.
        engine.release(20_000)
        engine.liveProviders.store(100, ordering: .relaxed)
        #expect(engine.reserveLease() == 500)
        #expect(engine.reserveLease() == 0)
    }
}
