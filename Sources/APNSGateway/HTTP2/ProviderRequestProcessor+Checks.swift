import APNSCore
import Courier
import Foundation
import HeraldTime

/// The checks a push passes before it is accepted: its path's device token, who sends it (certificate or provider
/// token), the device and its topic, the payload.
extension ProviderRequestProcessor {
    /// The device token's text in a `/3/device/<token>` path: a view of the path, not a copy (it is decoded later,
    /// in place, in its turn among the checks).
    func tokenText(from path: String?) throws -> Substring {
        let prefix = "/3/device/"
        guard let path, path.hasPrefix(prefix) else {
            throw APNSRequestRejection(.badPath, "the path is \(path ?? "missing"); use /3/device/<device token>")
        }
        var token = Substring(path.utf8.dropFirst(prefix.utf8.count))
        let hasMore = token.withUTF8 { $0.contains(UInt8(ascii: "/")) || $0.contains(UInt8(ascii: "?")) }
        guard !hasMore else {
            throw APNSRequestRejection(
                .badPath, "the path has more after the device token; use /3/device/<device token>")
        }
        guard !token.isEmpty else {
            throw APNSRequestRejection(.missingDeviceToken, "the path has no device token after /3/device/")
        }
        return token
    }

    /// The key that signed the request's provider token, once the token passes every rule of Apple's token-based authentication.
    /// Who sends: the connection's provider certificate, or the request's provider token (checked against the key's
    /// environment).
    func credential(
        for request: ProviderRequest,
        connection: ConnectionAuthentication,
        environment: APNSEnvironment,
        token: ProviderTokenCheck
    ) throws -> ProviderCredential {
        switch connection.certificate {
        case .push(let certificate):
            guard certificate.environments.contains(environment) else {
                let names = certificate.environments.map(\.rawValue).sorted().joined(separator: " and ")
                throw APNSRequestRejection(
                    .badCertificateEnvironment,
                    "the certificate is for \(names); this is the \(environment) environment")
            }
            return .certificate(certificate)
        case .notForPush:
            throw APNSRequestRejection(
                .badCertificate,
                "the client certificate has no APNs topics or environment; use one from POST /admin/certificates")
        case .none:
            let key = try authenticate(request, connection: connection, token: token)
            if let keyEnvironment = key.environment, keyEnvironment != environment {
                throw APNSRequestRejection(
                    .badEnvironmentKeyIDInToken, "key \(key.keyID) is for \(keyEnvironment), this is \(environment)")
            }
            return .key(key)
        }
    }

    func authenticate(
        _ request: ProviderRequest,
        connection: ConnectionAuthentication,
        token: ProviderTokenCheck
    ) throws -> APNSProviderTokenVerifier.Key {
        let verified: APNSProviderToken
        switch token {
        case .absent:
            throw APNSRequestRejection(.missingProviderToken, "the request has no authorization header")
        case .known(let known):
            if let problem = APNSProviderTokenPolicy.ageProblem(issuedAt: known.issuedAt, now: now()) { throw problem }
            verified = known
        case .verified(let result):
            verified = try result.get()
            if let rejection = connection.accept(
                verified, authorization: request.header("authorization") ?? "", now: now())
            {
                throw rejection
            }
        }
        guard let key = keys.current.keys[verified.keyID] else {
            throw APNSRequestRejection(.invalidProviderToken, "key \(verified.keyID) is no longer known")
        }
        return key
    }

    func resolveDevice(_ tokenText: Substring, environment: APNSEnvironment) throws -> DeviceRegistry.Device {
        var text = tokenText
        let token = try text.withUTF8 { utf8 throws(APNSRequestRejection) in try APNSDeviceToken(hexUTF8: utf8) }
        guard let device = registry.device(for: token) else {
            throw APNSRequestRejection(.badDeviceToken, "no device has this token")
        }
        guard device.environment == environment else {
            throw APNSRequestRejection(
                .badDeviceToken,
                "the token is a \(device.environment) token; this is the \(environment) environment"
            )
        }
        return device
    }

    func checkPayload(_ request: ProviderRequest, pushType: APNSPushType) throws {
        if request.bodyTooLarge || request.body.count > pushType.maximumPayloadSize {
            throw APNSRequestRejection(
                .payloadTooLarge,
                "the payload is over \(pushType.maximumPayloadSize) bytes, the limit for push type \(pushType)"
            )
        }
        guard !request.body.isEmpty else { throw APNSRequestRejection(.payloadEmpty, "the payload is empty") }
        do {
            try APNSPayload.check(request.body)
        } catch {
            throw APNSRequestRejection(.payloadEmpty, error.message)
        }
    }

    /// The time now, on the gateway's clock.
    func now() -> Date { clock.currentDate }
}
