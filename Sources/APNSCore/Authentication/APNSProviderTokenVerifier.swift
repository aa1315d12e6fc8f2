public import Foundation
import JWTKit

/// Verifies provider tokens as APNs does: ES256 only, a known key ID, the key's team as issuer, a valid signature and
/// an acceptable age.
///
/// ```swift
/// var verifier = APNSProviderTokenVerifier()
/// try verifier.addKey(pem: p8OrPublicKey, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// switch await verifier.verify(authorization: "bearer eyJ...", now: Date()) { ... }
/// ```
public struct APNSProviderTokenVerifier: Sendable {
    /// One key APNs knows: its IDs and, when restricted, the topics it may push to.
    public struct Key: Sendable {
        public let keyID: String
        public let teamID: String
        /// The bundle IDs the key may push to; `nil` for a team-scoped key.
        public let topics: Set<String>?
        /// The one environment the key may be used in; `nil` for both (`BadEnvironmentKeyIdInToken`).
        public let environment: APNSEnvironment?
        let publicKey: ES256PublicKey
    }

    private var keysByID: [String: Key] = [:]

    public init() {}

    /// The keys registered, by key ID.
    public var keys: [String: Key] { keysByID }

    /// Registers a key from its `.p8` private key or its public key (PEM).
    ///
    /// - Parameters:
    ///   - pem: a PKCS#8 or SEC1 P-256 private key, a P-256 public key, or a certificate holding one.
    ///   - keyID: the key's 10-character ID.
    ///   - teamID: the 10-character team ID the key belongs to.
    ///   - topics: bundle IDs the key is restricted to; `nil` for a team-scoped key.
    ///   - environment: the one environment the key is for; `nil` for both.
    /// - Throws: ``APNSCredentialError`` when the PEM holds no P-256 key or an ID is malformed.
    public mutating func addKey(
        pem: String,
        keyID: String,
        teamID: String,
        topics: Set<String>? = nil,
        environment: APNSEnvironment? = nil
    ) throws(APNSCredentialError) {
        try APNSIdentifiers.check(keyID: keyID, teamID: teamID)
        let publicKey: ES256PublicKey
        if let privateKey = try? ES256PrivateKey(pem: pem) {
            publicKey = privateKey.publicKey
        } else if let key = try? ES256PublicKey(pem: pem) {
            publicKey = key
        } else if let key = try? ES256PublicKey(certificate: pem) {
            publicKey = key
        } else {
            throw APNSCredentialError("key \(keyID): the PEM holds no P-256 key; give the .p8 file or its public key")
        }
        keysByID[keyID] = Key(
            keyID: keyID, teamID: teamID, topics: topics, environment: environment, publicKey: publicKey)
    }

    /// Verifies an `authorization` header value.
    ///
    /// - Returns: the token's key ID, team and issue time, or the rejection APNs would answer with:
    ///   `MissingProviderToken`, `InvalidProviderToken` or `ExpiredProviderToken`.
    public func verify(authorization: String?, now: Date) async -> Result<APNSProviderToken, APNSRequestRejection> {
        guard let authorization, !authorization.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .failure(
                APNSRequestRejection(
                    .missingProviderToken,
                    "no authorization header; send 'authorization: bearer <JWT>' or connect with a certificate"
                )
            )
        }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .failure(invalid("the authorization header is not 'bearer <JWT>'"))
        }
        return await verify(jwt: String(parts[1]).trimmingCharacters(in: .whitespaces), now: now)
    }

    /// Verifies a compact JWT.
    public func verify(jwt: String, now: Date) async -> Result<APNSProviderToken, APNSRequestRejection> {
        let header: JWTHeader
        let claims: APNSProviderTokenClaims
        do {
            (header, claims, _) = try DefaultJWTParser().parse(Array(jwt.utf8), as: APNSProviderTokenClaims.self)
        } catch {
            return .failure(invalid("the provider token is not a JWT with iss and iat claims"))
        }
        guard header.alg == "ES256" else {
            return .failure(invalid("the provider token's alg is \(header.alg ?? "missing"); APNs accepts only ES256"))
        }
        guard let keyID = header.kid else { return .failure(invalid("the provider token has no kid header")) }
        guard let key = keysByID[keyID] else {
            return .failure(invalid("no key with ID \(keyID) is registered"))
        }
        guard claims.iss.value == key.teamID else {
            return .failure(
                invalid("the token's iss \(claims.iss.value) is not the team \(key.teamID) of key \(keyID)"))
        }
        do {
            let collection = await JWTKeyCollection().add(ecdsa: key.publicKey, kid: JWKIdentifier(string: keyID))
            _ = try await collection.verify(jwt, as: APNSProviderTokenClaims.self)
        } catch {
            return .failure(invalid("the provider token's signature does not verify with key \(keyID)"))
        }
        if let problem = APNSProviderTokenPolicy.ageProblem(issuedAt: claims.iat.value, now: now) {
            return .failure(problem)
        }
        return .success(APNSProviderToken(jwt: jwt, keyID: keyID, teamID: key.teamID, issuedAt: claims.iat.value))
    }

    private func invalid(_ message: String) -> APNSRequestRejection {
        APNSRequestRejection(.invalidProviderToken, message)
    }
}
