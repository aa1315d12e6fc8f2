import APNSCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The client's connections: it sends each batch where there is room, opens a connection when every open one is
/// full (up to the limit), and turns each attempt's outcome into a result or a retry.
final class ConnectionPool: Sendable {
    private let configuration: APNSPushClient.Configuration
    private let group: any EventLoopGroup
    private let bootstrap: ConnectionBootstrap
    private let tokens: ProviderTokenCache?
    private let window: SendWindow
    private let connections = NIOLockedValueBox<[PooledConnection]>([])
    /// The last connection failure logged and when: the same reason again within ``repeatedWarningInterval`` is not
    /// logged again (a send of many notifications opens a new connection for those that arrive after one failed).
    private let lastWarning = NIOLockedValueBox<(reason: String, at: NIODeadline)?>(nil)
    static let repeatedWarningInterval = TimeAmount.seconds(10)

    init(
        configuration: APNSPushClient.Configuration,
        group: any EventLoopGroup,
        bootstrap: ConnectionBootstrap,
        tokens: ProviderTokenCache?,
        window: SendWindow
    ) {
        self.configuration = configuration
        self.group = group
        self.bootstrap = bootstrap
        self.tokens = tokens
        self.window = window
    }

    /// Sends a batch on the connection with the most room, opening one if every open one is full.
    func dispatch(_ batch: [PendingNotification]) {
        var batch = batch
        if batch.contains(where: \.isCancelled) {
            for pending in batch where pending.isCancelled { finish(pending, Self.cancelled(pending, written: false)) }
            batch.removeAll(where: \.isCancelled)
        }
        guard !batch.isEmpty else { return }
        let (connection, isNew) = connections.withLockedValue { connections in
            let best = connections.max { $0.load.room < $1.load.room }
            if let best, best.load.room > 0 || connections.count >= configuration.maximumConnections {
                return (best, false)
            }
            let connection = makeConnection()
            connections.append(connection)
            return (connection, true)
        }
        if isNew {
            configuration.observer.connectionsChanged(open: connections.withLockedValue { $0.count })
            connection.connect(with: bootstrap)
        }
        connection.submit(batch)
    }

    /// Ends at once, on every connection, the notifications of sends that were cancelled (their flag is set).
    func dropCancelled() {
        for connection in connections.withLockedValue({ $0 }) { connection.dropCancelled() }
    }

    /// Closes every connection once its streams are answered.
    func closeAll() {
        let all = connections.withLockedValue { connections in
            defer { connections.removeAll() }
            return connections
        }
        for connection in all { connection.closeGracefully() }
    }

    /// A connection and the loop that turns its outcomes into results: another loop of the group when there is one,
    /// so the connection's loop only frames (results, retries and the callers' callbacks cost it nothing).
    private func makeConnection() -> PooledConnection {
        let loop = group.next()
        let resultLoop = group.makeIterator().first { $0 !== loop } ?? loop
        var connection: PooledConnection?
        connection = PooledConnection(loop: loop) { load in
            APNSConnectionHandler(
                authority: configuration.endpoint.authority,
                tokens: tokens,
                load: load,
                observer: configuration.observer,
                pingInterval: configuration.pingInterval,
                pingTimeout: configuration.pingTimeout,
                streamCap: configuration.maximumStreamsPerConnection,
                loop: loop,
                events: ConnectionEvents(
                    finished: { [weak self] batch in
                        guard let self else { return }
                        resultLoop.execute {
                            for attempt in batch { self.finished(attempt.pending, attempt.outcome) }
                        }
                    },
                    stoppedTakingWork: { [weak self, load] in self?.remove(load) },
                    failedToConnect: { [weak self, configuration] reason in
                        guard self?.isNewWarning(reason) ?? true else { return }
                        configuration.logger.warning(
                            "cannot connect",
                            metadata: ["endpoint": "\(configuration.endpoint.authority)", "error": "\(reason)"])
                    }
                )
            )
        }
        return connection!
    }

    /// Whether a connection failure for `reason` is to be logged: not when the same one was within the interval.
    private func isNewWarning(_ reason: String) -> Bool {
        let now = NIODeadline.now()
        return lastWarning.withLockedValue { last in
            if let last, last.reason == reason, now - last.at < Self.repeatedWarningInterval { return false }
            last = (reason, now)
            return true
        }
    }

    private func remove(_ load: ConnectionLoad) {
        let count = connections.withLockedValue { connections in
            connections.removeAll { $0.load === load }
            return connections.count
        }
        configuration.observer.connectionsChanged(open: count)
    }

    // MARK: Outcomes

    /// Turns an attempt's outcome into the notification's result, or sends it again where reference A allows.
    private func finished(_ pending: PendingNotification, _ outcome: AttemptOutcome) {
        if pending.isCancelled, let written = outcome.cancelledInstead {
            finish(pending, Self.cancelled(pending, written: written))
            return
        }
        switch outcome {
        case .answered(let status, let parts):
            if (200..<300).contains(status) {
                var acceptance = APNSAcceptance(apnsID: parts.apnsID ?? "", uniqueID: parts.uniqueID)
                if pending.notification.channelRequest != nil {
                    acceptance.status = status
                    acceptance.channelID = parts.channelID
                    acceptance.body = parts.body.map { Array($0.readableBytesView) }
                }
                finish(pending, .accepted(acceptance))
                return
            }
            let rejection = Self.rejection(status: status, apnsID: parts.apnsID, body: parts.body)
            switch rejection.reason.retryAdvice(status: status) {
            case .afterBackoff where !configuration.retryPolicy.retriesAnswers:
                finish(pending, .rejected(rejection))
            case .afterBackoff, .onNewConnection:
                retry(pending, after: rejection)
            case .withNewProviderToken where tokens != nil:
                retryWithNewToken(pending, after: rejection)
            default:
                finish(pending, .rejected(rejection))
            }
        case .notProcessed(let reason):
            let rejection = APNSRejection(status: nil, reason: .streamReset, message: reason)
            if pending.attempts == 0 {
                resend(pending, after: .zero)
            } else {
                retry(pending, after: rejection)
            }
        case .lost(let reason):
            retry(pending, after: APNSRejection(status: nil, reason: .streamReset, message: reason))
        case .connectionFailed(let reason, let retryable):
            // Logged once by the connection (``ConnectionEvents/failedToConnect``), not once per notification.
            pending.attempts += 1
            let rejection = APNSRejection(status: nil, reason: .connectionFailed, message: reason)
            if retryable, configuration.retryPolicy.retriesUnreachable {
                retry(pending, after: rejection)
            } else {
                finish(pending, .rejected(rejection))
            }
        case .cancelled(let written):
            finish(pending, Self.cancelled(pending, written: written))
        case .deadlineExceeded:
            let seconds = configuration.timeout.components.seconds
            finish(
                pending,
                .rejected(
                    APNSRejection(
                        status: nil, reason: .deadlineExceeded,
                        message:
                            "no answer before the deadline (\(seconds) s unless given) after \(pending.attempts) attempt(s)"
                    )
                )
            )
        }
    }

    private func retry(_ pending: PendingNotification, after rejection: APNSRejection) {
        let attempts = max(pending.attempts, 1)
        guard attempts < configuration.retryPolicy.maximumAttempts, !pending.isCancelled else {
            finish(pending, .rejected(rejection))
            return
        }
        let delay = configuration.retryPolicy.backoff(afterAttempts: attempts)
        guard NIODeadline.now() + TimeAmount(delay) < pending.deadline else {
            finish(pending, .rejected(rejection))
            return
        }
        configuration.observer.notificationRetried(reason: rejection.reason, attempt: attempts, delay: delay)
        var metadata = Self.metadata(pending, rejection)
        metadata["attempt"] = "\(attempts)"
        metadata["delay"] = "\(delay)"
        configuration.logger.info("sending again", metadata: metadata)
        resend(pending, after: delay)
    }

    private func resend(_ pending: PendingNotification, after delay: Duration) {
        if delay == .zero {
            dispatch([pending])
        } else {
            group.next().scheduleTask(in: TimeAmount(delay)) { [weak self] in self?.dispatch([pending]) }
        }
    }

    /// `ExpiredProviderToken`: sign a new token (once for all the notifications that got the answer) and send again.
    private func retryWithNewToken(_ pending: PendingNotification, after rejection: APNSRejection) {
        guard let tokens, pending.attempts < configuration.retryPolicy.maximumAttempts, !pending.isCancelled else {
            finish(pending, .rejected(rejection))
            return
        }
        tokens.expireIfRefreshAllowed()
        configuration.observer.notificationRetried(reason: rejection.reason, attempt: pending.attempts, delay: .zero)
        Task {
            _ = try? await tokens.authorization()
            self.dispatch([pending])
        }
    }

    private func finish(_ pending: PendingNotification, _ result: APNSResult) {
        if case .rejected(let rejection) = result {
            configuration.logger.debug("rejected", metadata: Self.metadata(pending, rejection))
        }
        let latency = pending.firstSent.map { NIODeadline.now() - $0 } ?? .zero
        configuration.observer.notificationFinished(result, latency: .nanoseconds(latency.nanoseconds))
        pending.onResult(
            APNSSendOutcome(
                notification: pending.notification, result: result, attempts: pending.attempts, index: pending.index))
        window.release(1)
    }

    /// The result of a notification whose send was cancelled.
    private static func cancelled(_ pending: PendingNotification, written: Bool) -> APNSResult {
        let message =
            written
            ? "the send was cancelled while APNs had it; it may have been delivered"
            : "the send was cancelled before it was written to APNs (\(pending.attempts) attempt(s) before)"
        return .rejected(APNSRejection(status: nil, reason: .cancelled, message: message))
    }

    /// What a log line says of a notification and its refusal: never the whole device token.
    private static func metadata(_ pending: PendingNotification, _ rejection: APNSRejection) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "token": "\(pending.notification.deviceToken.prefix(8))…", "reason": "\(rejection.reason.rawValue)",
        ]
        if let apnsID = rejection.apnsID ?? pending.notification.headers.apnsID?.rawValue {
            metadata["apns-id"] = "\(apnsID)"
        }
        if let status = rejection.status { metadata["status"] = "\(status)" }
        return metadata
    }

    /// The rejection an error answer describes; a body that is not APNs' JSON is reported as such.
    static func rejection(status: Int, apnsID: String?, body: ByteBuffer?) -> APNSRejection {
        let data = body.map { Data($0.readableBytesView) } ?? Data()
        guard let response = try? APNSErrorResponse(data: data) else {
            let text = String(decoding: data.prefix(200), as: UTF8.self)
            return APNSRejection(
                status: status, reason: .invalidResponse, apnsID: apnsID,
                message: "status \(status) without an APNs reason\(text.isEmpty ? "" : ": \(text)")")
        }
        let summary = APNSReason.catalog[response.reason]?.summary ?? "APNs answered \(status) \(response.reason)"
        // The local APNs says exactly what was wrong when asked (never Apple).
        let message = response.explanation.map { "\(summary) The server says: \(String($0.prefix(500)))" } ?? summary
        return APNSRejection(
            status: status, reason: response.reason, timestamp: response.invalidSince, apnsID: apnsID,
            message: message)
    }
}
