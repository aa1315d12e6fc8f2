import APNSCore
public import NIOCore
public import NIOPosix

/// An HTTP/2 client for APNs: Apple's production or sandbox servers, or any compatible server such as
/// `herald gateway`.
///
/// It keeps long-lived connections (up to ``Configuration/maximumConnections``), multiplexes as many streams as each
/// server allows, signs and refreshes provider tokens, retries only where APNs' rules allow, and ends every
/// notification in exactly one ``APNSResult``.
///
/// ```swift
/// let signer = try APNSProviderTokenSigner(privateKeyPEM: p8, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// let client = try APNSPushClient(configuration: .init(endpoint: .sandbox, authentication: .token(signer)))
/// let result = try await client.send(APNSNotification(deviceToken: token, headers: headers, payload: payload))
/// await client.shutdown()
/// ```
public final class APNSPushClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: Configuration
    private let pool: ConnectionPool
    private let tokens: ProviderTokenCache?
    private let window: SendWindow

    /// How many notifications a bulk send hands to a connection at a time.
    static let batchSize = 64

    /// A client; it connects on first use.
    ///
    /// - Parameters:
    ///   - configuration: where to send, how to authenticate, and the limits.
    ///   - eventLoopGroup: the threads connections run on; NIO's shared group by default.
    /// - Throws: ``APNSClientError`` when TLS cannot be set up (an unreadable CA or certificate).
    public init(
        configuration: Configuration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(APNSClientError) {
        self.configuration = configuration
        if case .token(let signer, let policy) = configuration.authentication {
            tokens = ProviderTokenCache(signer: signer, policy: policy, clock: configuration.clock)
        } else {
            tokens = nil
        }
        window = SendWindow(capacity: configuration.maximumPendingNotifications)
        let bootstrap = ConnectionBootstrap(
            endpoint: configuration.endpoint,
            sslContext: try ConnectionBootstrap.makeSSLContext(
                endpoint: configuration.endpoint, authentication: configuration.authentication),
            connectTimeout: configuration.connectTimeout
        )
        pool = ConnectionPool(
            configuration: configuration, group: eventLoopGroup, bootstrap: bootstrap, tokens: tokens, window: window)
    }

    /// Sends one notification and waits for its result.
    ///
    /// - Parameters:
    ///   - notification: what to send.
    ///   - timeout: how long it may take, retries included (``Configuration/timeout`` when `nil`).
    /// - Returns: APNs' acceptance or the rejection; a rejection with no status means APNs never answered. When the
    ///   task is cancelled before APNs answers, it returns at once with ``APNSReason/cancelled``.
    /// - Throws: ``APNSClientError`` only when no provider token can be signed.
    public func send(_ notification: APNSNotification, timeout: Duration? = nil) async throws(APNSClientError)
        -> APNSResult
    {
        try await refreshToken()
        await window.acquire(1)
        let deadline = NIODeadline.now() + TimeAmount(timeout ?? configuration.timeout)
        let cancellation = SendCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pool.dispatch([
                    PendingNotification(notification: notification, deadline: deadline, cancellation: cancellation) {
                        continuation.resume(returning: $0.result)
                    }
                ])
            }
        } onCancel: {
            cancel(cancellation)
        }
    }

    /// Sends many notifications, as fast as the servers take them, and reports each one's outcome as it arrives.
    ///
    /// The sequence is read as room frees up (at most ``Configuration/maximumPendingNotifications`` inside the
    /// client), so a sequence of millions is never held whole. Returns when every notification has its outcome.
    ///
    /// When the task is cancelled, the sequence is read no further and the send returns as soon as what was read has
    /// its outcome: those APNs has not answered end at once with ``APNSReason/cancelled`` (without waiting for a
    /// connection, an answer or their deadline).
    ///
    /// - Parameters:
    ///   - notifications: what to send, read once, in order.
    ///   - onResult: called once per notification, on an event loop thread; keep it quick. The outcome's
    ///     ``APNSSendOutcome/index`` is the notification's position in `notifications`.
    /// - Throws: ``APNSClientError`` only when no provider token can be signed; outcomes already reported stand.
    public func send(
        contentsOf notifications: some Sequence<APNSNotification>,
        onResult: @escaping @Sendable (APNSSendOutcome) -> Void
    ) async throws(APNSClientError) {
        let completion = BulkCompletion()
        let cancellation = SendCancellation()
        let report: @Sendable (APNSSendOutcome) -> Void = { outcome in
            onResult(outcome)
            completion.finishedOne()
        }
        // Cancellation's own handler cannot throw a typed error: the error comes back as a value.
        let fed = await withTaskCancellationHandler {
            let fed = await feed(notifications, cancellation: cancellation, completion: completion, report: report)
            await completion.waitForAll()
            return fed
        } onCancel: {
            cancel(cancellation)
        }
        try fed.get()
    }

    /// Reads the sequence into the pool, a batch at a time, until its end, a cancellation or a signing error.
    private func feed(
        _ notifications: some Sequence<APNSNotification>, cancellation: SendCancellation, completion: BulkCompletion,
        report: @escaping @Sendable (APNSSendOutcome) -> Void
    ) async -> Result<Void, APNSClientError> {
        let timeout = TimeAmount(configuration.timeout)
        var batch: [PendingNotification] = []
        batch.reserveCapacity(Self.batchSize)
        var iterator = notifications.makeIterator()
        var index = 0
        do throws(APNSClientError) {
            while !cancellation.isCancelled, let notification = iterator.next() {
                batch.append(
                    PendingNotification(
                        notification: notification, index: index, deadline: .now() + timeout,
                        cancellation: cancellation, onResult: report))
                index += 1
                if batch.count == Self.batchSize {
                    try await dispatch(batch, completion: completion)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            try await dispatch(batch, completion: completion)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Notifications handed to the client and not answered yet: on their HTTP/2 streams, or waiting for one.
    public var notificationsInFlight: Int { window.inUse }

    /// Waits for every notification handed over to end, then closes the connections with GOAWAY.
    public func shutdown() async {
        await window.waitUntilEmpty()
        pool.closeAll()
    }

    private func dispatch(_ batch: [PendingNotification], completion: BulkCompletion) async throws(APNSClientError) {
        guard !batch.isEmpty else { return }
        try await refreshToken()
        await window.acquire(batch.count)
        completion.handedOver(batch.count)
        pool.dispatch(batch)
    }

    /// Ends at once what a cancelled send handed over and APNs has not answered.
    private func cancel(_ cancellation: SendCancellation) {
        cancellation.cancel()
        pool.dropCancelled()
    }

    private func refreshToken() async throws(APNSClientError) {
        if let tokens { _ = try await tokens.authorization() }
    }
}
