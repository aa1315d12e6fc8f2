import Foundation
import HeraldSupport
import HeraldTime
import Logging
import ProviderStorage
import Synchronization

/// Pausing an app while its batches are in flight: a batch of it stops before its next chunk, and what it parked is
/// woken when the app was resumed before the parked deliveries were recorded.
extension DeliveryEngine {
    /// Stops sending what this engine holds of paused app `appID`: its leased deliveries not written yet go back to
    /// the queue without spending an attempt. Other providers see the pause in the store within
    /// ``pauseCheckInterval``.
    func stopSending(appID: String) {
        pausedApps.withLock { _ = $0.insert(appID) }
    }

    /// Sends app `appID` again (resumed).
    func resumeSending(appID: String) {
        pausedApps.withLock { _ = $0.remove(appID) }
    }

    /// How often a batch being sent reads again whether its app was paused by another provider.
    static let pauseCheckInterval: TimeInterval = 1

    /// When a batch last read its app's pause from the store.
    struct PauseCheck {
        let appID: String
        let interval: TimeInterval
        var last = Date.distantPast
    }

    /// Whether the app of `check` was paused: here at once, by another provider (read from the store at most once
    /// an interval; a failed read is taken as not paused).
    func isPaused(_ check: inout PauseCheck) async -> Bool {
        if pausedApps.withLock({ $0.contains(check.appID) }) { return true }
        let now = settings.clock.currentDate
        guard now.timeIntervalSince(check.last) >= check.interval else { return false }
        let first = check.last == .distantPast
        check.last = now
        // The batch read the app just before its first chunk.
        if first { return false }
        return (try? await store.app(id: check.appID))?.app.pausedAt != nil
    }

    /// After a batch: the apps whose deliveries it parked because they were paused, and that were resumed before the
    /// parked deliveries were recorded (so the resume did not wake them), are woken now.
    func wakeResumed(_ apps: Set<String>) async {
        for appID in apps {
            guard pausedApps.withLock({ !$0.contains(appID) }),
                let app = try? await store.app(id: appID), app.app.pausedAt == nil
            else { continue }
            do {
                _ = try await store.wakeWaiting(
                    appID: appID, reason: DeliveryVerdict.pausedReason, now: settings.clock.currentDate)
            } catch {
                failures.report(
                    .record, "cannot wake the deliveries of a resumed app", error: error, metadata: ["app": "\(appID)"])
            }
        }
    }
}
