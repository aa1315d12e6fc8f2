import Foundation
import JWTKit

/// The claims of an APNs provider token: the team that signs (`iss`) and when (`iat`, whole seconds).
///
/// jwt-kit calls ``verify(using:)`` after checking the signature; the age rules need a clock and live in
/// ``APNSProviderTokenPolicy`` instead.
struct APNSProviderTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var iat: IssuedAtClaim

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
