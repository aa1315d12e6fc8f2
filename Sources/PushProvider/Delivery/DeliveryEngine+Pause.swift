import Foundation
import HeraldSupport
import HeraldTime
import Logging
import ProviderStorage
import Synchronization

/// Pausing an app while its batches are in flight, by an operator or because APNs refused its credentials: a batch of
/// it stops before its next chunk, and what it parked is woken when the app was resumed before the parked deliveries
/// were recorded.
extension DeliveryEngine {
    /// Stops sending what this engine holds of paused app `appID`: its leased deliveries not written yet go back to
    /// the queue without spending an attempt. Other providers see the pause in the store within
    /// ``pauseCheckInterval``.
    func stopSending(appID: String) {
        pausedApps.withLock { $0[appID] = DeliveryVerdict.pausedReason }
    }

    /// Sends app `appID` again (resumed).
    func resumeSending(appID: String) {
        pausedApps.withLock { _ = $0.removeValue(forKey: appID) }
    }

    /// How often a batch being sent reads again whether its app was paused by another provider.
    static let pauseCheckInterval: TimeInterval = 1

    /// When a batch last read its app's pause from the store.
    struct PauseCheck {
        let appID: String
        let interval: TimeInterval
        var last = Date.distantPast
    }

    /// The reason a paused `app`'s deliveries wait with: its credential pause's, or an operator's.
    static func parkingReason(of app: ProviderApp) -> String {
        app.pauseReason.map(CredentialPause.parkingReason) ?? DeliveryVerdict.pausedReason
    }

    /// The reason to park the rest of a batch with when the app of `check` is paused, else `nil`: paused here it
    /// stops at once; the store, read at most once an interval, says whether another provider paused or resumed it
    /// (a failed read keeps what this process knows).
    func pauseParking(_ check: inout PauseCheck) async -> String? {
        let local = pausedApps.withLock { $0[check.appID] }
        let now = settings.clock.currentDate
        guard now.timeIntervalSince(check.last) >= check.interval else { return local }
        let first = check.last == .distantPast
        check.last = now
        // The batch read the app just before its first chunk.
        if first { return local }
        guard let stored = try? await store.app(id: check.appID) else { return local }
        guard stored.app.pausedAt != nil else {
            pausedApps.withLock { _ = $0.removeValue(forKey: check.appID) }
            return nil
        }
        return Self.parkingReason(of: stored.app)
    }

    /// APNs refused app `appID`'s credentials or topic with `reason`: the app pauses here at once and in the store
    /// (unless already paused), and its queued deliveries wait, spending no attempt, until its credentials change or
    /// it is resumed. Said once in the log, by the process whose pause took.
    func pauseForCredentials(appID: String, reason: String) async {
        let parking = CredentialPause.parkingReason(reason)
        pausedApps.withLock { $0[appID] = parking }
        do {
            guard try await store.pauseForCredentials(appID: appID, reason: reason, at: settings.clock.currentDate)
            else { return }
            let parked = try await store.park(appID: appID, reason: parking, until: Self.pausedUntil)
            // Resumed between the pause and the park (here or by another provider): the resume woke nothing yet
            // parked, so what this parked is woken now.
            if try await store.app(id: appID)?.app.pausedAt == nil {
                pausedApps.withLock { _ = $0.removeValue(forKey: appID) }
                _ = try await store.wakeWaiting(appID: appID, reason: parking, now: settings.clock.currentDate)
            }
            failures.metrics.credentialPaused(reason: reason)
            logger.warning(
                "APNs refused the app's credentials; its sends are paused (no attempt spent) until its credentials change or it is resumed",
                metadata: [
                    "app": "\(appID)", "reason": "\(reason)", "parkedInQueue": "\(parked)",
                    "check": "herald doctor --app \(appID)",
                ])
            changes.notify()
        } catch {
            failures.report(
                .record, "cannot pause an app whose credentials APNs refused", error: error,
                metadata: ["app": "\(appID)", "reason": "\(reason)"])
        }
    }

    /// After a batch: the apps whose deliveries it parked because they were paused, and that were resumed before the
    /// parked deliveries were recorded (so the resume did not wake them), are woken now.
    func wakeResumed(_ apps: Set<String>) async {
        for appID in apps {
            guard pausedApps.withLock({ $0[appID] == nil }),
                let app = try? await store.app(id: appID), app.app.pausedAt == nil
            else { continue }
            do {
                for reason in CredentialPause.everyParkingReason {
                    _ = try await store.wakeWaiting(appID: appID, reason: reason, now: settings.clock.currentDate)
                }
            } catch {
                failures.report(
                    .record, "cannot wake the deliveries of a resumed app", error: error, metadata: ["app": "\(appID)"])
            }
        }
    }
}
