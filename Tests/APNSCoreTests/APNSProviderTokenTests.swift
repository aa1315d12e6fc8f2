import Crypto
import Foundation
import Testing

@testable import APNSCore

@Suite("Provider tokens (JWT)")
struct APNSProviderTokenTests {
    let key = P256.Signing.PrivateKey()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func signer(_ key: P256.Signing.PrivateKey? = nil, keyID: String = "ABC123DEFG", teamID: String = "DEF123GHIJ")
        throws -> APNSProviderTokenSigner
    {
        try APNSProviderTokenSigner(privateKeyPEM: (key ?? self.key).pemRepresentation, keyID: keyID, teamID: teamID)
    }

    func verifier(pem: String? = nil) throws -> APNSProviderTokenVerifier {
        var verifier = APNSProviderTokenVerifier()
        try verifier.addKey(pem: pem ?? key.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        return verifier
    }

    @Test("a token from a .p8 key has Apple's header and claims, iat in whole seconds")
    func tokenShape() async throws {
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let token = try await signer().token(issuedAt: now.addingTimeInterval(0.75))
        let parts = token.jwt.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try JSONValue(parsing: base64URLDecode(parts[0]))
        let claims = try JSONValue(parsing: base64URLDecode(parts[1]))
        #expect(header["alg"]?.string == "ES256")
        #expect(header["kid"]?.string == "ABC123DEFG")
        #expect(claims["iss"]?.string == "DEF123GHIJ")
        #expect(claims["iat"]?.number?.literal == "1800000000")
        #expect(token.issuedAt == now)
        #expect(token.authorizationHeaderValue == "bearer \(token.jwt)")
        #expect(!token.description.contains(token.jwt))
    }

    @Test("the gateway verifies it with the private key or only the public key")
    func verifies() async throws {
        let token = try await signer().token(issuedAt: now)
        let verified = try await verifier().verify(authorization: token.authorizationHeaderValue, now: now).get()
        #expect(verified.keyID == "ABC123DEFG")
        #expect(verified.teamID == "DEF123GHIJ")
        let publicOnly = try verifier(pem: key.publicKey.pemRepresentation)
        #expect(try await publicOnly.verify(jwt: token.jwt, now: now).get().issuedAt == now)
    }

    @Test(
        "age: up to an hour is fine, older is ExpiredProviderToken, far future is InvalidProviderToken",
        arguments: [(0.0, nil), (3600, nil), (3601, "ExpiredProviderToken"), (-3601, "InvalidProviderToken")]
    )
    func age(secondsOld: Double, reason: String?) async throws {
        let token = try await signer().token(issuedAt: now.addingTimeInterval(-secondsOld))
        let result = try await verifier().verify(jwt: token.jwt, now: now)
        switch result {
        case .success: #expect(reason == nil)
        case .failure(let rejection): #expect(rejection.reason.rawValue == reason)
        }
    }

    @Test("no header is MissingProviderToken; anything malformed or foreign is InvalidProviderToken")
    func rejections() async throws {
        let verifier = try verifier()
        #expect(await verifier.verify(authorization: nil, now: now).failureReason == .missingProviderToken)
        #expect(await verifier.verify(authorization: "  ", now: now).failureReason == .missingProviderToken)
        let good = try await signer().token(issuedAt: now)
        let otherKey = try await signer(P256.Signing.PrivateKey()).token(issuedAt: now)
        let otherKeyID = try await signer(keyID: "ZZZ999ZZZZ").token(issuedAt: now)
        let otherTeam = try await signer(teamID: "ZZZ999ZZZZ").token(issuedAt: now)
        let hs256Header = base64URLEncode(Data(#"{"alg":"HS256","kid":"ABC123DEFG","typ":"JWT"}"#.utf8))
        let wrongAlg = ([hs256Header] + good.jwt.split(separator: ".").dropFirst().map(String.init)).joined(
            separator: ".")
        for authorization in [
            "basic \(good.jwt)", "bearer", "bearer not.a.jwt", "bearer \(otherKey.jwt)", "bearer \(otherKeyID.jwt)",
            "bearer \(otherTeam.jwt)", "bearer \(wrongAlg)", "bearer \(good.jwt)x",
        ] {
            #expect(
                await verifier.verify(authorization: authorization, now: now).failureReason == .invalidProviderToken)
        }
        #expect(await verifier.verify(authorization: "Bearer \(good.jwt)", now: now).failureReason == nil)
    }

    @Test("malformed keys and IDs are refused with a message that holds no key material")
    func badCredentials() {
        #expect(throws: APNSCredentialError.self) {
            try APNSProviderTokenSigner(
                privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", keyID: "ABC123DEFG",
                teamID: "DEF123GHIJ")
        }
        #expect(throws: APNSCredentialError.self) { try signer(keyID: "short") }
        #expect(throws: APNSCredentialError.self) { try signer(teamID: "lowercase1") }
        var verifier = APNSProviderTokenVerifier()
        #expect(throws: APNSCredentialError.self) {
            try verifier.addKey(pem: "nonsense", keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        }
    }

    @Test("refresh policy: clamped to 20..59 minutes, refresh due after the interval")
    func refreshPolicy() {
        #expect(APNSProviderTokenPolicy().refreshInterval == .seconds(3000))
        #expect(APNSProviderTokenPolicy(refreshInterval: .seconds(60)).refreshInterval == .seconds(1200))
        #expect(APNSProviderTokenPolicy(refreshInterval: .seconds(7200)).refreshInterval == .seconds(3540))
        let policy = APNSProviderTokenPolicy()
        #expect(!policy.needsRefresh(issuedAt: now, now: now.addingTimeInterval(2999)))
        #expect(policy.needsRefresh(issuedAt: now, now: now.addingTimeInterval(3000)))
    }

    @Test("a connection keeps its first team and key and its token for at least 20 minutes")
    func connectionState() async throws {
        var state = APNSTokenConnectionState()
        let first = try await signer().token(issuedAt: now)
        let second = try await signer().token(issuedAt: now.addingTimeInterval(60))
        let foreign = try await signer(keyID: "ZZZ999ZZZZ").token(issuedAt: now)
        #expect(!state.isAuthenticated)
        #expect(state.accept(first, now: now) == nil)
        #expect(state.isAuthenticated)
        #expect(state.accept(first, now: now.addingTimeInterval(5)) == nil)
        #expect(state.accept(second, now: now.addingTimeInterval(1199))?.reason == .tooManyProviderTokenUpdates)
        #expect(state.accept(foreign, now: now.addingTimeInterval(1300))?.reason == .unrelatedKeyIDInToken)
        #expect(state.accept(second, now: now.addingTimeInterval(1200)) == nil)
        #expect(state.currentJWT == second.jwt)
    }
}

extension Result where Failure == APNSRequestRejection {
    var failureReason: APNSReason? {
        if case .failure(let rejection) = self { return rejection.reason }
        return nil
    }
}

func base64URLDecode(_ text: String) -> Data {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64) ?? Data()
}

func base64URLEncode(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
