import APNSClient
import Foundation
import HeraldSupport
import HeraldTime
import Logging
import ProviderStorage

/// Deliveries that wait for APNs while it cannot be reached: they spend no attempt, one comes back for each probe,
/// and the rest go out as soon as a probe connects.
extension DeliveryEngine {
    /// After a chunk: the deliveries that could not be written (no connection) wait for APNs; the app's outage
    /// starts, goes on or ends by what the chunk saw. Returns whether one of them comes back for the next probe.
    func waitForAPNs(
        _ prepared: PreparedBatch, _ unreached: [Int], reason: String, answered: Int, appID: String,
        into buffer: ResultBuffer
    ) async -> Bool {
        let now = settings.clock.currentDate
        if answered > 0 {
            if let outage = reachability.reached(appID: appID) {
                // The parked deliveries go out now, not when their parking ends; once more a second later, for those
                // another worker parked just before (its results are written every `flushInterval`).
                let (store, clock, signal) = (self.store, settings.clock, self.signal)
                let reason = APNSReachability.unreachableReason
                let woken = (try? await store.wakeWaiting(appID: appID, reason: reason, now: now)) ?? 0
                Task {
                    try? await clock.sleep(for: .seconds(1))
                    if let late = try? await store.wakeWaiting(appID: appID, reason: reason, now: clock.currentDate),
                        late > 0
                    {
                        signal.notify()
                    }
                }
                logger.notice(
                    "APNs is reachable again; the app's notifications go out",
                    metadata: ["app": "\(appID)", "since": "\(outage.since)", "waiting": "\(woken)"])
                signal.notify()
            }
        } else if unreached.isEmpty {
            reachability.abandonProbe(appID: appID)
        }
        guard !unreached.isEmpty else { return false }
        let wasReachable = reachability.outage(appID: appID) == nil
        // Some of the chunk reached APNs: the failures were the connection's, tried again in a second.
        let next =
            answered > 0
            ? now.addingTimeInterval(APNSReachability.firstWait)
            : reachability.failed(appID: appID, reason: reason, now: now)
        if wasReachable, answered == 0 {
            metrics.apnsOutageBegan()
            logger.warning(
                "APNs cannot be reached; the app's notifications wait in the queue (no attempt spent), one probe tries again with backoff",
                metadata: ["app": "\(appID)", "reason": "\(reason)"])
        }
        for (index, position) in unreached.enumerated() {
            buffer.append(waitForAPNs(prepared, at: position, until: next, parked: answered == 0 && index > 0))
        }
        return true
    }

    /// One delivery that waits for APNs: until `next` (the next probe), or, `parked`, until a probe connects
    /// (``APNSReachability/parking`` at most, so a provider that restarts meanwhile finds it again); it gives up
    /// when its notification expires before the next probe. `probeSentAt`: when the probe that is out went out, if
    /// one is; a probe younger than ``APNSReachability/firstWait`` is about to say whether APNs can be reached, so a
    /// delivery that cannot wait that long (`apns-expiration: 0`, now or never) waits for its outcome rather
    /// than be given up on a guess while another worker's probe is being answered.
    func waitForAPNs(
        _ prepared: PreparedBatch, at position: Int, until next: Date, parked: Bool, probeSentAt: Date? = nil
    ) -> DeliveryResult {
        let delivery = prepared.deliveries[position]
        let reason = APNSReachability.unreachableReason
        let limit = prepared.waitLimits[position]
        let now = settings.clock.currentDate
        let probeAnswersSoon = probeSentAt.map { now.timeIntervalSince($0) < APNSReachability.firstWait } ?? false
        guard next <= limit || probeAnswersSoon else {
            return .rejected(
                id: delivery.id, notificationID: delivery.notificationID, status: nil, reason: reason, at: now,
                deactivate: nil)
        }
        let until = parked ? max(next, min(limit, now + APNSReachability.parking)) : next
        return .wait(id: delivery.id, reason: reason, notBefore: until)
    }
}
