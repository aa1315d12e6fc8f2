public import Foundation
import HeraldJSON

/// What APNs remembers about token authentication on one connection: the team and key of its first push, and the
/// token in use and since when.
///
/// APNs relates a team to a connection on the first push: a token from an unrelated key afterwards is
/// `403 UnrelatedKeyIdInToken`, and a token that replaces the current one sooner than 20 minutes after it is
/// `429 TooManyProviderTokenUpdates`.
public struct APNSTokenConnectionState: Sendable, Hashable {
    /// The team bound to the connection by its first valid token.
    public private(set) var teamID: String?
    /// The key of the connection's first valid token.
    public private(set) var keyID: String?
    /// The token in use.
    public private(set) var currentJWT: String?
    /// When the token in use was first accepted on this connection.
    public private(set) var currentSince: Date?

    public init() {}

    /// Whether a valid token has been accepted on this connection yet.
    public var isAuthenticated: Bool { teamID != nil }

    /// Accepts a verified token for a request at `now`, or says why APNs would not.
    ///
    /// - Returns: `nil` when the request may proceed; otherwise the rejection.
    public mutating func accept(_ token: APNSProviderToken, now: Date) -> APNSRequestRejection? {
        guard let teamID, let keyID, let currentJWT, let currentSince else {
            self.teamID = token.teamID
            self.keyID = token.keyID
            self.currentJWT = token.jwt
            self.currentSince = now
            return nil
        }
        if token.jwt == currentJWT { return nil }
        if token.teamID != teamID || token.keyID != keyID {
            return APNSRequestRejection(
                .unrelatedKeyIDInToken,
                "this connection authenticated with key \(keyID) of team \(teamID); a token from key "
                    + "\(token.keyID) of team \(token.teamID) needs a new connection"
            )
        }
        let elapsed = now.timeIntervalSince(currentSince)
        if elapsed < APNSProviderTokenPolicy.minimumRefreshInterval.timeInterval {
            return APNSRequestRejection(
                .tooManyProviderTokenUpdates,
                "the provider token changed \((elapsed / 60).clampedInt) minutes after the last one on this connection; "
                    + "reuse a token for at least 20 minutes"
            )
        }
        self.currentJWT = token.jwt
        self.currentSince = now
        return nil
    }
}
