import APNSCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The client's connections: it sends each batch where ``PoolDecisions`` places it, opening connections as they
/// say, and carries out what they make of each attempt's outcome (a result, a retry, a new provider token).
final class ConnectionPool: Sendable {
    private let configuration: APNSPushClient.Configuration
    private let group: any EventLoopGroup
    private let bootstrap: ConnectionBootstrap
    private let tokens: ProviderTokenCache?
    private let window: SendWindow
    private let decisions: PoolDecisions
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
        decisions = PoolDecisions(
            retryPolicy: configuration.retryPolicy, maximumConnections: configuration.maximumConnections,
            signsTokens: tokens != nil, timeout: configuration.timeout)
    }

    /// Sends a batch on the connection with the most room, opening one if every open one is full.
    func dispatch(_ batch: [PendingNotification]) {
        var batch = batch
        if batch.contains(where: \.isCancelled) {
            for pending in batch where pending.isCancelled {
                finish(pending, PoolDecisions.cancelled(written: false, attempts: pending.attempts))
            }
            batch.removeAll(where: \.isCancelled)
        }
        guard !batch.isEmpty else { return }
        let (connection, isNew) = connections.withLockedValue { connections in
            switch decisions.place(rooms: connections.map(\.load.room)) {
            case .existing(let position):
                return (connections[position], false)
            case .open:
                let connection = makeConnection()
                connections.append(connection)
                return (connection, true)
            }
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
                        configuration.observer.connectionFailed(reason: reason)
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

    /// Turns an attempt's outcome into the notification's result, or sends it again where APNs' retry advice allows
    /// (``PoolDecisions/next(after:attempts:isCancelled:isChannelRequest:now:deadline:)``).
    private func finished(_ pending: PendingNotification, _ outcome: AttemptOutcome) {
        if case .connectionFailed = outcome, !pending.isCancelled {
            // Logged once by the connection (``ConnectionEvents/failedToConnect``), not once per notification.
            pending.attempts += 1
        }
        let next = decisions.next(
            after: outcome, attempts: pending.attempts, isCancelled: pending.isCancelled,
            isChannelRequest: pending.notification.channelRequest != nil, now: .now(), deadline: pending.deadline)
        switch next {
        case .finish(let result):
            finish(pending, result)
        case .resendNow:
            resend(pending, after: .zero)
        case .retry(let delay, let attempt, let rejection):
            configuration.observer.notificationRetried(reason: rejection.reason, attempt: attempt, delay: delay)
            var metadata = Self.metadata(pending, rejection)
            metadata["attempt"] = "\(attempt)"
            metadata["delay"] = "\(delay)"
            configuration.logger.info("sending again", metadata: metadata)
            resend(pending, after: delay)
        case .renewToken(let rejection):
            retryWithNewToken(pending, after: rejection)
        }
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
        guard let tokens else { return finish(pending, .rejected(rejection)) }
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
        configuration.observer.notificationFinished(
            pending.notification, result: result, latency: .nanoseconds(latency.nanoseconds))
        pending.onResult(
            APNSSendOutcome(
                notification: pending.notification, result: result, attempts: pending.attempts, index: pending.index))
        window.release(1)
    }

    /// What a log line says of a notification and its refusal: never the whole device token.
    private static func metadata(_ pending: PendingNotification, _ rejection: APNSRejection) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "reason": "\(rejection.reason.rawValue)"
        ]
        if let token = pending.notification.deviceToken { metadata["token"] = "\(token.prefix(8))…" }
        if let apnsID = rejection.apnsID ?? pending.notification.requestID?.rawValue {
            metadata["apns-id"] = "\(apnsID)"
        }
        if let status = rejection.status { metadata["status"] = "\(status)" }
        return metadata
    }
}
