import APNSCore
import Foundation

/// Decides the answer to one provider request as APNs does, check by check: method, path, duplicate headers,
/// authentication, header values, the device token and its topic, then the payload.
struct ProviderRequestProcessor: Sendable {
    let registry: DeviceRegistry
    let verifier: APNSProviderTokenVerifier
    /// The environment for `:authority` names that are not Apple's.
    let defaultEnvironment: APNSEnvironment
    let now: @Sendable () -> Date

    func process(_ request: ProviderRequest, connection: ConnectionAuthentication) async -> ProviderResponse {
        let apnsID =
            request.header(APNSRequestHeaders.Name.apnsID).flatMap(APNSMessageID.init(headerValue:))?.rawValue
            ?? APNSMessageID().rawValue
        do {
            return try await accept(request, connection: connection, apnsID: apnsID)
        } catch let rejection as APNSRequestRejection {
            return .rejected(rejection, apnsID: apnsID)
        } catch {
            return .rejected(APNSRequestRejection(.internalServerError, "\(error)"), apnsID: apnsID)
        }
    }

    private func accept(_ request: ProviderRequest, connection: ConnectionAuthentication, apnsID: String) async throws
        -> ProviderResponse
    {
        guard request.method == "POST" else {
            throw APNSRequestRejection(.methodNotAllowed, "the method is \(request.method ?? "missing"); use POST")
        }
        let tokenText = try tokenText(from: request.path)
        let headers = try APNSRequestHeaders(validating: request.headers)
        try await authenticate(request, connection: connection)
        let environment = request.authority.flatMap(APNSEnvironment.init(authority:)) ?? defaultEnvironment
        let device = try resolveDevice(tokenText, environment: environment)
        let pushType = headers.pushType ?? .alert
        guard let topic = headers.topic else {
            throw APNSRequestRejection(.missingTopic, "apns-topic is required with token authentication")
        }
        guard pushType.bundleID(fromTopic: topic) == device.bundleID else {
            throw APNSRequestRejection(
                .deviceTokenNotForTopic,
                "the device token belongs to \(device.bundleID); topic \(topic) with push type \(pushType) does not"
            )
        }
        try checkTopicAllowed(device.bundleID, keyID: connection.state.keyID)
        if let removed = device.unregisteredAt {
            var rejection = ProviderResponse.rejected(
                APNSRequestRejection(.unregistered, "the app was removed from the device"),
                apnsID: apnsID
            )
            rejection.error = APNSErrorResponse(reason: .unregistered, invalidSince: removed)
            return rejection
        }
        try checkPayload(request, pushType: pushType)
        let uniqueID = environment == .development ? UUID().uuidString.lowercased() : nil
        return ProviderResponse(status: 200, apnsID: apnsID, uniqueID: uniqueID, error: nil)
    }

    private func tokenText(from path: String?) throws -> String {
        let prefix = "/3/device/"
        guard let path, path.hasPrefix(prefix) else {
            throw APNSRequestRejection(.badPath, "the path is \(path ?? "missing"); use /3/device/<device token>")
        }
        let token = String(path.dropFirst(prefix.count))
        guard !token.contains("/"), !token.contains("?") else {
            throw APNSRequestRejection(
                .badPath, "the path has more after the device token; use /3/device/<device token>")
        }
        guard !token.isEmpty else {
            throw APNSRequestRejection(.missingDeviceToken, "the path has no device token after /3/device/")
        }
        return token
    }

    private func authenticate(_ request: ProviderRequest, connection: ConnectionAuthentication) async throws {
        let authorization = request.header("authorization")
        if let token = connection.verifiedToken(for: authorization) {
            if let problem = APNSProviderTokenPolicy.ageProblem(issuedAt: token.issuedAt, now: now()) { throw problem }
            return
        }
        let token = try await verifier.verify(authorization: authorization, now: now()).get()
        if let rejection = connection.accept(token, authorization: authorization ?? "", now: now()) { throw rejection }
    }

    private func resolveDevice(_ tokenText: String, environment: APNSEnvironment) throws -> DeviceRegistry.Device {
        let token = try APNSDeviceToken(hex: tokenText)
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

    private func checkTopicAllowed(_ bundleID: String, keyID: String?) throws {
        guard let keyID, let topics = verifier.keys[keyID]?.topics, !topics.contains(bundleID) else { return }
        throw APNSRequestRejection(.topicDisallowed, "key \(keyID) may not push to \(bundleID)")
    }

    private func checkPayload(_ request: ProviderRequest, pushType: APNSPushType) throws {
        if request.bodyTooLarge || request.body.count > pushType.maximumPayloadSize {
            throw APNSRequestRejection(
                .payloadTooLarge,
                "the payload is over \(pushType.maximumPayloadSize) bytes, the limit for push type \(pushType)"
            )
        }
        guard !request.body.isEmpty else { throw APNSRequestRejection(.payloadEmpty, "the payload is empty") }
        do {
            _ = try APNSPayload(data: Data(request.body))
        } catch {
            throw APNSRequestRejection(.payloadEmpty, error.message)
        }
    }
}
