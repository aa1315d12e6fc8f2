public import Foundation

/// A signed provider token (a JWT) and what it says: key ID, team ID and issue time.
public struct APNSProviderToken: Hashable, Sendable, CustomStringConvertible {
    /// The compact JWT, `header.claims.signature`. A secret: never log it.
    public let jwt: String
    /// The `kid` header: the 10-character key ID.
    public let keyID: String
    /// The `iss` claim: the 10-character team ID.
    public let teamID: String
    /// The `iat` claim, in whole seconds.
    public let issuedAt: Date

    public init(jwt: String, keyID: String, teamID: String, issuedAt: Date) {
        self.jwt = jwt
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
    }

    /// The `authorization` header value: `bearer <jwt>`.
    public var authorizationHeaderValue: String { "bearer \(jwt)" }

    /// Names the token without revealing it.
    public var description: String { "provider token (key \(keyID), team \(teamID), issued \(issuedAt))" }
}
