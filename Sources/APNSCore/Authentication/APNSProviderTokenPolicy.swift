public import Foundation
import HeraldJSON

/// Apple's timing rules for provider tokens, shared by the client (when to sign a new one) and the gateway (what to
/// refuse).
///
/// APNs refuses a token whose `iat` is more than an hour old (`403 ExpiredProviderToken`), and a connection whose
/// token changes more often than every 20 minutes (`429 TooManyProviderTokenUpdates`). Apple asks providers to
/// refresh no sooner than 20 and no later than 60 minutes.
public struct APNSProviderTokenPolicy: Hashable, Sendable {
    /// The oldest a token may be: 60 minutes.
    public static let maximumAge: Duration = .seconds(3600)
    /// The shortest time between two tokens on one connection: 20 minutes.
    public static let minimumRefreshInterval: Duration = .seconds(1200)

    /// How old a client lets its token get before signing a new one; between 20 and 60 minutes.
    public let refreshInterval: Duration

    /// A policy that refreshes after `refreshInterval`, clamped into Apple's 20 to 60 minute window (default 50).
    public init(refreshInterval: Duration = .seconds(3000)) {
        self.refreshInterval = min(max(refreshInterval, Self.minimumRefreshInterval), Self.maximumAge - .seconds(60))
    }

    /// Whether a client should sign a new token now.
    public func needsRefresh(issuedAt: Date, now: Date) -> Bool {
        now.timeIntervalSince(issuedAt) >= refreshInterval.timeInterval
    }

    /// Why APNs would refuse a token issued at `issuedAt`, judged at `now`, or `nil` when its age is acceptable.
    ///
    /// A token more than an hour old is `ExpiredProviderToken`; one issued more than an hour in the future is
    /// `InvalidProviderToken` (its `iat` is not "no more than one hour from the current time").
    public static func ageProblem(issuedAt: Date, now: Date) -> APNSRequestRejection? {
        let age = now.timeIntervalSince(issuedAt)
        if age > maximumAge.timeInterval {
            return APNSRequestRejection(
                .expiredProviderToken,
                "the provider token was issued \((age / 60).clampedInt) minutes ago; APNs accepts tokens up to 60 minutes "
                    + "old. Sign a new one"
            )
        }
        if -age > maximumAge.timeInterval {
            return APNSRequestRejection(
                .invalidProviderToken,
                "the provider token's iat is \((-age / 60).clampedInt) minutes in the future; check the signer's clock"
            )
        }
        return nil
    }
}

extension Duration {
    /// The duration in seconds as a `TimeInterval`.
    var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
