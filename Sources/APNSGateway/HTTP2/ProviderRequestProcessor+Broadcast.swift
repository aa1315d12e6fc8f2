import APNSCore
import Courier
import Foundation

/// Broadcasts: `POST /4/broadcasts/apps/<bundle ID>` on the push port, checked as APNs checks them —
/// method, path, request ID, authentication, the app, the broadcast switch, the headers, the channel, the
/// expiration against the channel's storage policy, the payload — then fanned out to the channel's subscribers.
extension ProviderRequestProcessor {
    /// The largest broadcast payload: 5,120 bytes.
    static let broadcastPayloadLimit = 5120

    /// The answer to a broadcast.
    func answerBroadcast(
        _ request: ProviderRequest, connection: ConnectionAuthentication,
        token: ProviderTokenCheck
    ) -> ProviderResponse {
        let given = request.header(APNSBroadcastHeaders.Name.requestID).flatMap(APNSMessageID.init(headerValue:))
        let requestID = given?.uuid ?? RandomPool.uuid()
        let requestIDText = given?.rawValue ?? requestID.lowercasedString
        var response: ProviderResponse
        do {
            let broadcast = try acceptBroadcast(
                request, connection: connection, requestID: requestID, token: token)
            if let effect = faults.take(forChannel: broadcast.channelID) {
                response = injected(effect, apnsID: requestID, apnsIDText: requestIDText)
            } else {
                fanOut.run(channels.publish(broadcast))
                response = ProviderResponse(
                    status: 200, apnsID: requestIDText, uniqueID: broadcast.uniqueID.lowercasedString, error: nil)
            }
        } catch let rejection as APNSRequestRejection {
            store.log.record(
                requestID, .init(.rejected, at: now(), "\(rejection.reason.rawValue): \(rejection.message)"))
            response = .rejected(rejection, apnsID: requestIDText)
        } catch {
            response = .rejected(APNSRequestRejection(.internalServerError, "\(error)"), apnsID: requestIDText)
        }
        response.idHeader = APNSBroadcastHeaders.Name.requestID
        return response
    }

    private func acceptBroadcast(
        _ request: ProviderRequest, connection: ConnectionAuthentication, requestID: UUID,
        token: ProviderTokenCheck
    ) throws -> ChannelBroadcast {
        guard request.method == "POST" else {
            throw APNSRequestRejection(.methodNotAllowed, "the method is \(request.method ?? "missing"); use POST")
        }
        guard let path = request.path.flatMap(BroadcastPath.init), !path.bundleID.isEmpty,
            !path.bundleID.contains("/"), !path.bundleID.contains("?")
        else {
            throw APNSRequestRejection(
                .badPath, "the path is \(request.path ?? "missing"); use /4/broadcasts/apps/<bundle ID>")
        }
        if let text = request.header(APNSBroadcastHeaders.Name.requestID) {
            _ = try APNSBroadcastHeaders.parseRequestID(text)
        }
        let app = try authorizedApp(String(path.bundleID), request: request, connection: connection, token: token)
        let headers = try APNSBroadcastHeaders(validating: request.headers)
        let channel: BroadcastChannel
        do {
            channel = try channels.channel(headers.channelID, of: app)
        } catch {
            throw APNSRequestRejection(
                .channelNotRegistered,
                "\(app) has no channel \(headers.channelID): it was never made there, or it was deleted")
        }
        if channel.storagePolicy == .noMessageStored, headers.expiration != .immediately {
            throw APNSRequestRejection(
                .badExpirationDate,
                "channel \(channel.id) stores no message (policy 0), so apns-expiration must be 0; make a channel "
                    + "with message-storage-policy 1 to keep the most recent broadcast")
        }
        if request.bodyTooLarge || request.body.count > Self.broadcastPayloadLimit {
            throw APNSRequestRejection(
                .payloadTooLarge, "the payload is over \(Self.broadcastPayloadLimit) bytes, the limit for a broadcast")
        }
        guard !request.body.isEmpty else { throw APNSRequestRejection(.payloadEmpty, "the payload is empty") }
        guard case .object? = try? JSONValue(parsing: Data(request.body)) else {
            throw APNSRequestRejection(.badRequestPayload, "the payload is not a JSON object")
        }
        return ChannelBroadcast(
            requestID: requestID, uniqueID: RandomPool.uuid(), channelID: channel.id, bundleID: app.bundleID,
            priority: headers.priority, expiration: headers.expiration, payload: request.body, receivedAt: now())
    }

    /// The app a broadcast or channel request names, once its sender is authenticated and may use it and broadcast
    /// is on for it.
    ///
    /// - Throws: the authentication's rejection (403), `TopicDisallowed` for a bundle ID with a push type's suffix
    ///   or characters a bundle ID cannot have, `TopicMismatch` when the credential does not cover it,
    ///   `FeatureNotEnabled` when broadcast is off for it.
    func authorizedApp(
        _ bundleID: String, request: ProviderRequest, connection: ConnectionAuthentication,
        token: ProviderTokenCheck
    ) throws -> BroadcastApp {
        let environment = request.authority.flatMap(APNSEnvironment.init(authority:)) ?? defaultEnvironment
        let credential = try credential(
            for: request, connection: connection, environment: environment, token: token)
        if let suffixed = APNSTopic.pushTypeSuffixed(in: bundleID) {
            throw APNSRequestRejection(
                .topicDisallowed,
                "\(bundleID) ends with the \(suffixed) push type's suffix; use the bundle ID alone in the path")
        }
        if let problem = APNSTopic.problem(with: bundleID) { throw APNSRequestRejection(.topicDisallowed, problem) }
        if let problem = credential.problem(pushingTo: bundleID, bundleID: bundleID) {
            throw APNSRequestRejection(.topicMismatch, problem)
        }
        let app = BroadcastApp(bundleID: bundleID, environment: environment)
        guard channels.isBroadcastEnabled(for: app) else {
            throw APNSRequestRejection(
                .featureNotEnabled,
                "broadcast is switched off for \(app); switch it on with POST /admin/apps/\(bundleID)/broadcast "
                    + #"{"enabled": true}"#)
        }
        return app
    }
}
