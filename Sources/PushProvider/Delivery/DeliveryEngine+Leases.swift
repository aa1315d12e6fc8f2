import Foundation
import HeraldSupport
import HeraldTime
import Logging
import ProviderStorage
import Synchronization

/// Keeping leases honest across processes: requeueing what a dead worker leased (its lease ran out), and telling a
/// shared store this engine is alive while taking back the leases of engines that stopped saying so.
extension DeliveryEngine {
    /// Puts back deliveries whose worker died (its lease ran out).
    func watchLeases() async {
        while !Task.isCancelled {
            do {
                let count = try await store.reclaimExpiredLeases(now: settings.clock.currentDate)
                if count > 0 {
                    metrics.leasesTakenOver(count, cause: "expired")
                    logger.notice("requeued deliveries whose lease ran out", metadata: ["count": "\(count)"])
                    signal.notify()
                }
            } catch {
                failures.report(.reclaim, "cannot requeue expired leases", error: error)
            }
            try? await settings.clock.sleep(for: .seconds(max(1, settings.leaseDuration / 4)))
        }
    }

    /// Tells the store this engine is alive, and takes back the leases of engines that stopped saying so (killed).
    func beat() async {
        while !Task.isCancelled {
            let (store, owner, staleAfter) = (self.store, self.owner, settings.staleAfter)
            // Its own task: a heartbeat cut short by cancellation must not leave a query half-done.
            do {
                let count = try await Task { try await store.heartbeat(owner: owner, staleAfter: staleAfter) }.value
                if count > 0 {
                    metrics.leasesTakenOver(count, cause: "provider_stopped")
                    logger.notice(
                        "requeued deliveries of a provider that stopped answering", metadata: ["count": "\(count)"])
                    notify()
                }
                if let live = try? await store.liveProviders(staleAfter: staleAfter) {
                    liveProviders.store(live, ordering: .relaxed)
                }
            } catch {
                failures.report(.heartbeat, "cannot say this provider is alive", error: error)
            }
            try? await settings.clock.sleep(for: settings.heartbeatInterval)
        }
    }

    /// Wakes this engine's idle workers when any provider on the database announces work (``notify()``); on a store
    /// one process uses there is nothing to hear, and it waits to be cancelled with the other tasks.
    func listen() async {
        for await _ in store.workAnnouncements() {
            signal.notify()
            changes.notify()
        }
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
}
