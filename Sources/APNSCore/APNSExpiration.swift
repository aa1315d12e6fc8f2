public import Foundation
import HeraldJSON

/// The `apns-expiration` header: how long APNs may store a notification it cannot deliver at once.
public enum APNSExpiration: Hashable, Sendable {
    /// No header: APNs stores the notification under its storage policy, up to ``defaultStoragePeriod``.
    case storagePolicy
    /// `0`: APNs tries to deliver once, now, and never stores it.
    case immediately
    /// A UNIX time in seconds: APNs stores and retries until then.
    case at(Date)

    /// How long APNs keeps a notification with no `apns-expiration` header: 30 days.
    public static let defaultStoragePeriod: Duration = .seconds(30 * 24 * 3600)

    /// The latest moment an expiration is kept as: 9999-12-31 23:59:59 UTC. A later one (up to 2^63-1 seconds) is
    /// accepted and kept as this, which changes nothing a device sees: APNs stores a notification 30 days at most.
    public static let latestMoment: Int64 = 253_402_300_799

    /// Parses a header value: a non-negative whole number of seconds since 1970 that fits in 64 bits. `nil` for
    /// anything else (APNs answers `400 BadExpirationDate`). A moment after ``latestMoment`` is kept as that.
    public init?(headerValue: String) {
        guard !headerValue.isEmpty, headerValue.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let seconds = Int64(headerValue)
        else { return nil }
        let kept = min(seconds, Self.latestMoment)
        self = kept == 0 ? .immediately : .at(Date(timeIntervalSince1970: TimeInterval(kept)))
    }

    /// The header value, or `nil` for ``storagePolicy`` (send no header). A date outside what the header can carry
    /// is written as the nearest value it can: `1` for a date before 1970, `2^63-1` past the 64-bit range.
    public var headerValue: String? {
        switch self {
        case .storagePolicy: nil
        case .immediately: "0"
        case .at(let date): String(max(1, date.timeIntervalSince1970.rounded(.down).clampedInt64 ?? 1))
        }
    }

    /// The last moment APNs may still deliver a notification accepted at `acceptedAt`: the given date, `acceptedAt`
    /// itself for ``immediately``, or 30 days later for ``storagePolicy``, whichever policy applies.
    public func deadline(acceptedAt: Date) -> Date {
        let policyLimit = acceptedAt.addingTimeInterval(TimeInterval(Self.defaultStoragePeriod.components.seconds))
        switch self {
        case .storagePolicy: return policyLimit
        case .immediately: return acceptedAt
        case .at(let date): return min(date, policyLimit)
        }
    }
}
