public import Foundation

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

    /// Parses a header value: a non-negative whole number of seconds since 1970. `nil` for anything else (APNs
    /// answers `400 BadExpirationDate`).
    public init?(headerValue: String) {
        guard !headerValue.isEmpty, headerValue.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let seconds = Int64(headerValue)
        else { return nil }
        self = seconds == 0 ? .immediately : .at(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The header value, or `nil` for ``storagePolicy`` (send no header).
    public var headerValue: String? {
        switch self {
        case .storagePolicy: nil
        case .immediately: "0"
        case .at(let date): String(Int64(date.timeIntervalSince1970.rounded(.down)))
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
