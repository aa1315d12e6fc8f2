import Foundation
import HeraldSupport
import HeraldTime
import Logging
import ProviderStorage

/// Writing APNs' answers to the store, riding out a database blip while the batch's leases hold.
extension DeliveryEngine {
    /// Writes APNs' answers. A write that fails (the database restarting, a lost connection) is tried again with
    /// backoff (50 ms doubling to 2 s) for as long as the batch's leases hold, extending them while it can: a blip
    /// shorter than the lease costs a blip, and nothing is sent twice because of it. Past the lease, another worker
    /// may have leased the deliveries again; the answers are dropped (the store writes only the owner's leases) and
    /// those deliveries are resent with the same `apns-id`.
    func record(_ results: [DeliveryResult], leasedUntil: Date) async {
        guard !results.isEmpty else { return }
        // A separate task, so that shutting down (cancelling the workers) never cancels writing what APNs answered.
        let (store, owner, clock, leaseDuration) = (self.store, self.owner, settings.clock, settings.leaseDuration)
        let now = { clock.currentDate }
        let written = await Task { () -> Bool in
            var wait: TimeInterval = 0.05
            var failures = 0
            var until = leasedUntil
            // A write that fails for good (not a blip) must not hold the batch forever.
            let giveUpAt = now().addingTimeInterval(leaseDuration * 5)
            while true {
                do {
                    try await store.record(results, owner: owner)
                    return true
                } catch {
                    failures += 1
                    let extended = now().addingTimeInterval(leaseDuration * 0.9)
                    if (try? await store.extendLeases(owner: owner, until: extended)) != nil { until = extended }
                    let next = now().addingTimeInterval(wait)
                    let retry = next < until && next < giveUpAt
                    if failures == 1 || !retry {
                        self.failures.report(
                            .record,
                            retry
                                ? "cannot record APNs' answers; trying again while the leases hold"
                                : "cannot record APNs' answers; they are sent again when their leases run out",
                            error: error, metadata: ["count": "\(results.count)", "owner": "\(owner)"])
                    }
                    guard retry else { return false }
                    try? await settings.clock.sleep(for: .seconds(wait))
                    wait = min(wait * 2, 2)
                }
            }
        }.value
        if written { changes.notify() }
    }
}
