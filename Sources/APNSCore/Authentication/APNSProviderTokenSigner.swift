public import Foundation
import JWTKit

/// Signs APNs provider tokens with an Apple `.p8` key (ES256, PKCS#8 PEM).
///
/// ```swift
/// let signer = try APNSProviderTokenSigner(privateKeyPEM: p8, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// let token = try await signer.token(issuedAt: Date())
/// request.headers["authorization"] = token.authorizationHeaderValue
/// ```
public struct APNSProviderTokenSigner: Sendable {
    /// The key ID (`kid`) tokens carry.
    public let keyID: String
    /// The team ID (`iss`) tokens carry.
    public let teamID: String
    private let key: ES256PrivateKey

    /// A signer for one key.
    ///
    /// - Parameters:
    ///   - privateKeyPEM: the `.p8` file's text (`-----BEGIN PRIVATE KEY-----`); SEC1 EC keys are accepted too.
    ///   - keyID: the key's 10-character ID from the developer account.
    ///   - teamID: the 10-character team ID.
    /// - Throws: ``APNSCredentialError`` when the key is not a P-256 private key or an ID is malformed.
    public init(privateKeyPEM: String, keyID: String, teamID: String) throws(APNSCredentialError) {
        try APNSIdentifiers.check(keyID: keyID, teamID: teamID)
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(pem: privateKeyPEM)
        } catch {
            throw APNSCredentialError(
                "the key is not a P-256 private key in PEM form; use the .p8 file Apple gave you",
                cause: error
            )
        }
        self.keyID = keyID
        self.teamID = teamID
        self.key = key
    }

    /// Signs a token issued at `issuedAt`, rounded down to whole seconds as APNs expects.
    ///
    /// - Throws: ``APNSCredentialError`` if signing fails.
    public func token(issuedAt: Date) async throws(APNSCredentialError) -> APNSProviderToken {
        let seconds = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = APNSProviderTokenClaims(iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: seconds))
        do {
            let collection = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: keyID))
            let jwt = try await collection.sign(claims, kid: JWKIdentifier(string: keyID), header: ["alg": "ES256"])
            return APNSProviderToken(jwt: jwt, keyID: keyID, teamID: teamID, issuedAt: seconds)
        } catch {
            throw APNSCredentialError("signing the provider token failed", cause: error)
        }
    }
}
