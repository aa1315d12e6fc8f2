import Foundation
import HeraldTime
import Synchronization

/// A per-app limit on notifications per second: callers wait until their batch fits.
final class RateLimiter: Sendable {
    private let state = Mutex<[String: Date]>([:])

    /// Waits until `count` more notifications for `appID` keep it within `perSecond`; returns at once when the limit
    /// is 0 (none).
    func acquire(_ count: Int, appID: String, perSecond: Int, clock: any WallClock) async {
        let now = clock.currentDate
        guard perSecond > 0, count > 0 else { return }
        // Each app has a "next free moment"; a batch takes count / rate seconds of it.
        let start = state.withLock { next in
            let start = max(next[appID] ?? now, now)
            next[appID] = start.addingTimeInterval(Double(count) / Double(perSecond))
            return start
        }
        let wait = start.timeIntervalSince(now)
        if wait > 0 { try? await clock.sleep(for: .seconds(wait)) }
    }
}
