import APNSCore
import Courier
import Foundation
import HeraldSupport
import HeraldTime
import Tracing

/// Decides the answer to one provider request as APNs does, check by check: method, path, duplicate headers, header
/// values, authentication, the device token and its topic, then the payload; then hands an accepted push to the store.
/// Broadcasts (`/4/broadcasts/apps/...`, ``answerBroadcast(_:connection:verified:)``) go to the channel registry, and
/// on the channel management port every request is a channel request (``answerChannelRequest(_:connection:verified:)``).
///
/// Everything runs synchronously except the first signature check of a provider token on a connection:
/// ``processImmediately(_:connection:)`` answers without suspending whenever it can, and ``process(_:connection:)``
/// also verifies a new token.
struct ProviderRequestProcessor: Sendable {
    /// Which of Apple's APIs a port serves.
    enum API: Sendable {
        /// Device pushes (`/3/device/...`) and broadcasts (`/4/broadcasts/apps/...`).
        case push
        /// Channel management (`/1/apps/.../channels`, `/1/apps/.../all-channels`).
        case channelManagement
    }

    let api: API
    let registry: DeviceRegistry
    /// The broadcast channels.
    let channels: ChannelRegistry
    /// Runs a broadcast's delivery to its subscribers, apart from the request's answer.
    let fanOut: BroadcastFanOut
    let keys: ProviderKeys
    let store: NotificationStore
    /// Failures armed through the admin API, applied to pushes that are otherwise accepted.
    let faults: InjectedFaults
    /// The environment for `:authority` names that are not Apple's.
    let defaultEnvironment: APNSEnvironment
    /// The time of day the gateway goes by.
    let clock: any WallClock
    /// Where answers are counted for `/admin/metrics`; `nil` in tests of the processor alone.
    let metrics: GatewayMetrics?
    /// Where a request that carries a `traceparent` is traced (`nil`: traces are off).
    let tracer: HeraldTracer?

    init(
        api: API = .push, registry: DeviceRegistry, channels: ChannelRegistry = ChannelRegistry(),
        fanOut: BroadcastFanOut = BroadcastFanOut(), keys: ProviderKeys, store: NotificationStore,
        faults: InjectedFaults, defaultEnvironment: APNSEnvironment, clock: any WallClock,
        metrics: GatewayMetrics? = nil, tracer: HeraldTracer? = nil
    ) {
        self.metrics = metrics
        self.tracer = tracer
        self.api = api
        self.registry = registry
        self.channels = channels
        self.fanOut = fanOut
        self.keys = keys
        self.store = store
        self.faults = faults
        self.defaultEnvironment = defaultEnvironment
        self.clock = clock
    }

    /// What is known of a request's provider token when it is answered.
    enum ProviderTokenCheck: Sendable {
        /// The request has no `authorization` header, or its connection's certificate authenticates it.
        case absent
        /// The same `authorization` this connection verified before (only its age is checked again).
        case known(APNSProviderToken)
        /// Verified for this request: the token, or why it is refused.
        case verified(Result<APNSProviderToken, APNSRequestRejection>)
    }

    /// What is known of the request's provider token without checking a signature; `nil` when one must be checked
    /// first (a token this connection has not verified).
    func knownToken(_ request: ProviderRequest, connection: ConnectionAuthentication) -> ProviderTokenCheck? {
        guard case .none = connection.certificate, let authorization = request.header("authorization") else {
            return .absent
        }
        return connection.verifiedToken(for: authorization).map { .known($0) }
    }

    /// The answer, or `nil` when the request carries a provider token this connection has not verified yet.
    func processImmediately(_ request: ProviderRequest, connection: ConnectionAuthentication) -> ProviderResponse? {
        knownToken(request, connection: connection).map { answer(request, connection: connection, token: $0) }
    }

    /// The answer, verifying a new provider token when there is one.
    func process(_ request: ProviderRequest, connection: ConnectionAuthentication) async -> ProviderResponse {
        let token: ProviderTokenCheck
        if let known = knownToken(request, connection: connection) {
            token = known
        } else {
            token = .verified(await keys.current.verify(authorization: request.header("authorization"), now: now()))
        }
        return answer(request, connection: connection, token: token)
    }

    private func answer(
        _ request: ProviderRequest,
        connection: ConnectionAuthentication,
        token: ProviderTokenCheck
    ) -> ProviderResponse {
        // A span only for a request that continues a trace: the gateway starts none of its own.
        let span = request.header("traceparent").flatMap { parent -> (any Span)? in
            guard let tracer, parent.utf8.count <= 128 else { return nil }
            return tracer.startSpan(
                "apns accept", parent: tracer.context(headers: ["traceparent": parent]), kind: .server)
        }
        let response = decide(
            request, connection: connection, token: token,
            traceParent: span.flatMap { tracer?.traceParent(of: $0.context) })
        metrics?.answered(
            status: response.status, reason: response.error?.reason,
            pushType: request.header(APNSRequestHeaders.Name.pushType))
        if let span {
            span.attributes["messaging.system"] = "apns"
            span.attributes["messaging.operation.type"] = "receive"
            span.attributes["messaging.message.id"] = response.apnsID
            span.attributes["apns.status"] = response.status
            if let reason = response.error?.reason {
                span.attributes["apns.reason"] = reason.rawValue
                span.setStatus(SpanStatus(code: .error, message: reason.rawValue))
            }
            span.attributes["herald.stored"] = response.stored != nil
            span.end()
        }
        return response
    }

    private func decide(
        _ request: ProviderRequest,
        connection: ConnectionAuthentication,
        token: ProviderTokenCheck,
        traceParent: String?
    ) -> ProviderResponse {
        if api == .channelManagement {
            return answerChannelRequest(request, connection: connection, token: token)
        }
        if let path = request.path, BroadcastPath(path) != nil {
            return answerBroadcast(request, connection: connection, token: token)
        }
        let messageID = request.header(APNSRequestHeaders.Name.apnsID).flatMap(APNSMessageID.init(headerValue:))
        let apnsID = messageID?.uuid ?? RandomPool.uuid()
        let apnsIDText = messageID?.rawValue ?? apnsID.lowercasedString
        do {
            var accepted = try accept(request, connection: connection, apnsID: apnsID, token: token)
            accepted.traceParent = traceParent
            if let effect = faults.take(for: accepted.token) {
                return injected(effect, apnsID: apnsID, apnsIDText: apnsIDText)
            }
            var response = ProviderResponse(
                status: 200, apnsID: apnsIDText, uniqueID: accepted.uniqueID?.lowercasedString, error: nil)
            if case .stored(let replaced) = store.accept(accepted) {
                response.stored = StoredPush(accepted, replaced: replaced)
            }
            return response
        } catch let rejection as APNSRequestRejection {
            var response = ProviderResponse.rejected(rejection, apnsID: apnsIDText)
            let explanation = request.header(APNSErrorResponse.explainHeader) == "1" ? rejection.message : nil
            if let invalidSince = rejection.invalidSince {
                response.error = APNSErrorResponse(
                    reason: rejection.reason, invalidSince: invalidSince, explanation: explanation)
            } else {
                response.error?.explanation = explanation
            }
            store.log.record(apnsID, .init(.rejected, at: now(), "\(rejection.reason.rawValue): \(rejection.message)"))
            return response
        } catch {
            return .rejected(APNSRequestRejection(.internalServerError, "\(error)"), apnsID: apnsIDText)
        }
    }

    /// The answer an armed fault asks for; the push is logged as rejected and not stored.
    func injected(_ effect: InjectedFaults.Effect, apnsID: UUID, apnsIDText: String) -> ProviderResponse {
        switch effect {
        case .answer(let status, let reason):
            store.log.record(apnsID, .init(.rejected, at: now(), "\(reason.rawValue): injected through /admin/faults"))
            return ProviderResponse(
                status: status, apnsID: apnsIDText, uniqueID: nil, error: APNSErrorResponse(reason: reason))
        case .goAway(let reason):
            var response = ProviderResponse(status: 0, apnsID: apnsIDText, uniqueID: nil, error: nil)
            response.goAway = reason
            return response
        }
    }

    private func accept(
        _ request: ProviderRequest,
        connection: ConnectionAuthentication,
        apnsID: UUID,
        token: ProviderTokenCheck
    ) throws -> AcceptedNotification {
        guard request.method == "POST" else {
            throw APNSRequestRejection(.methodNotAllowed, "the method is \(request.method ?? "missing"); use POST")
        }
        let tokenText = try tokenText(from: request.path)
        let headers = try APNSRequestHeaders(validating: request.headers)
        let environment = request.authority.flatMap(APNSEnvironment.init(authority:)) ?? defaultEnvironment
        let credential = try credential(
            for: request, connection: connection, environment: environment, token: token)
        let device = try resolveDevice(tokenText, environment: environment)
        let pushType = headers.pushType ?? .alert
        guard let topic = headers.topic ?? credential.defaultTopic else {
            throw APNSRequestRejection(.missingTopic, credential.missingTopicMessage)
        }
        guard pushType.bundleID(fromTopic: topic) == device.bundleID else {
            throw APNSRequestRejection(
                .deviceTokenNotForTopic,
                "the device token belongs to \(device.bundleID); topic \(topic) with push type \(pushType) does not"
            )
        }
        if let problem = credential.problem(pushingTo: topic, bundleID: device.bundleID) {
            throw APNSRequestRejection(.topicDisallowed, problem)
        }
        if let invalidation = device.invalidation {
            let message =
                invalidation.reason == .unregistered
                ? "the app was removed from the device" : "the device token expired; the app must register again"
            throw APNSRequestRejection(invalidation.reason, message, invalidSince: invalidation.since)
        }
        try checkPayload(request, pushType: pushType)
        return AcceptedNotification(
            apnsID: apnsID,
            uniqueID: environment == .development ? RandomPool.uuid() : nil,
            token: device.token,
            topic: topic,
            pushType: pushType,
            priority: headers.effectivePriority,
            expiration: headers.expiration,
            collapseID: headers.collapseID,
            payload: request.body,
            receivedAt: now()
        )
    }
}
