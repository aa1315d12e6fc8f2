import Foundation
import Synchronization

/// Which apps cannot reach APNs now (no connection could be made: DNS, TCP, TLS), since when and why, and when to try
/// again. While an app is unreachable its sends pause: its deliveries wait in the queue (spending no attempt; all but a
/// few parked until a probe connects) and one small probe goes out per backoff step (1 s doubling to 8 s, with up to a fifth taken off at random so that many
/// providers do not retry in step); the first probe that connects ends the outage and the app sends at full rate.
final class APNSReachability: Sendable {
    /// The first wait after a failed connection, doubled with each failed probe.
    static let firstWait: TimeInterval = 1
    /// The longest wait between two probes: APNs back is noticed within this, so sending resumes within seconds.
    static let longestWait: TimeInterval = 8
    /// How many notifications a probe sends.
    static let probeSize = 1
    /// How long the deliveries that are not the next probe stay parked: the probe that connects wakes them at once
    /// (``ProviderStore/wakeWaiting(appID:reason:now:)``), so the queue is not read again at every probe.
    static let parking: TimeInterval = 300
    /// The longest a notification without `apns-expiration` waits for APNs to be reachable.
    static let defaultWait: TimeInterval = 24 * 3600
    /// The reason a delivery waiting for APNs carries in the queue (and, when it expired waiting, its rejection).
    static let unreachableReason = "APNsUnreachable"

    /// An app that cannot reach APNs.
    struct Outage: Sendable, Equatable {
        /// When the first connection failed.
        var since: Date
        /// What the last failed connection said (the client's message: DNS, refused, TLS, ...).
        var reason: String
        /// When the next probe may go out.
        var nextProbe: Date
        /// The wait before ``nextProbe``, doubled with each failed probe.
        var wait: TimeInterval
        /// When the probe that is out now went out; `nil` when none is (while one is, the others wait for it).
        var probeSentAt: Date?
    }

    private let outages = Mutex<[String: Outage]>([:])

    /// The app's outage, when it has one.
    func outage(appID: String) -> Outage? {
        outages.withLock { $0[appID] }
    }

    /// Every app's outage.
    var all: [String: Outage] { outages.withLock { $0 } }

    /// What the app may send now: everything (`nil`: reachable), or a probe of ``probeSize`` when one is due (it is
    /// then marked as out), or nothing until the returned date (or until the outcome of the probe that is out).
    func permit(appID: String, now: Date) -> Permit {
        outages.withLock { outages in
            guard var outage = outages[appID] else { return .all }
            // While a probe is out, the rest wait at least a first step for its outcome (never a time already past,
            // which would lease them again at once).
            if let sentAt = outage.probeSentAt {
                return .awaitProbe(until: max(outage.nextProbe, now.addingTimeInterval(Self.firstWait)), sentAt: sentAt)
            }
            guard outage.nextProbe <= now else { return .waitUntil(outage.nextProbe) }
            outage.probeSentAt = now
            outages[appID] = outage
            return .probe
        }
    }

    /// What an app may send (``permit(appID:now:)``).
    enum Permit: Equatable {
        case all
        case probe
        case waitUntil(Date)
        /// A probe went out at `sentAt` and its outcome is not known yet: nothing goes out before it is (at the latest
        /// `until`).
        case awaitProbe(until: Date, sentAt: Date)
    }

    /// A send of `appID` could make no connection: the outage starts or goes on, and the next probe waits longer.
    ///
    /// - Returns: when the next probe may go out, what the deliveries that did not go out wait for.
    @discardableResult
    func failed(appID: String, reason: String, now: Date) -> Date {
        outages.withLock { outages in
            var outage =
                outages[appID] ?? Outage(since: now, reason: reason, nextProbe: now, wait: Self.firstWait / 2)
            outage.wait = min(outage.wait * 2, Self.longestWait)
            outage.reason = reason
            outage.probeSentAt = nil
            outage.nextProbe = now.addingTimeInterval(outage.wait * Double.random(in: 0.8...1))
            outages[appID] = outage
            return outage.nextProbe
        }
    }

    /// The probe of `appID` ended without telling whether APNs is reachable (cancelled): another may go out.
    func abandonProbe(appID: String) {
        outages.withLock { outages in outages[appID]?.probeSentAt = nil }
    }

    /// Someone sends again what gave up (a resend): the next probe of `appID`, if it has an outage, may go out now
    /// rather than at the end of its backoff step.
    func probeSoon(appID: String, now: Date) {
        outages.withLock { outages in
            guard var outage = outages[appID], outage.probeSentAt == nil else { return }
            outage.nextProbe = min(outage.nextProbe, now)
            outages[appID] = outage
        }
    }

    /// A send of `appID` reached APNs (it answered, whatever it said).
    ///
    /// - Returns: the outage this ends, if there was one.
    @discardableResult
    func reached(appID: String) -> Outage? {
        outages.withLock { $0.removeValue(forKey: appID) }
    }
}
