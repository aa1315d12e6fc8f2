import APNSCore
import HeraldHTTP2
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import NIOWebSocket

/// Builds a connection's handlers once ALPN has chosen the protocol.
struct GatewayPipelines: Sendable {
    let processor: ProviderRequestProcessor
    /// Writes the store's changes to the journal (``ProviderRequestWorker/persist``).
    let persist: @Sendable () -> Bool
    let admin: AdminRequestProcessor
    let registry: DeviceRegistry
    let store: NotificationStore
    let channels: ChannelRegistry
    /// New device tokens per source address, on the courier.
    let tokenLimit: TokenCreationLimit
    let idleTimeout: Duration
    /// How long a connection may take to set up (``SetupDeadline``) and an HTTP/1.1 request head to arrive.
    let setupTimeout: TimeAmount
    let connections: GatewayConnections
    let refusals: GatewayRefusals
    /// The gateway's event loops; a provider connection's requests are decided on the loop after its own.
    let eventLoops: [any EventLoop]

    /// HTTP/2: the provider and admin APIs, at the frame level.
    func configureHTTP2(_ channel: any Channel) throws {
        let peer = try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate
        let certificate = ClientCertificate(peer)
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = [
            HTTP2Setting(
                parameter: .maxConcurrentStreams,
                value: certificate.isPush
                    ? ProviderConnectionHandler.authenticatedStreamLimit : ProviderConnectionHandler.initialStreamLimit),
            HTTP2Setting(parameter: .maxHeaderListSize, value: ProviderRequest.maximumHeaderListSize),
        ]
        // The worker checks request header blocks (RequestHeaderRules), beside the connection's event loop.
        configuration.headerBlockValidation = .disabled
        let idle = TimeAmount(idleTimeout)
        try removeSetupDeadline(channel)
        // The idle timer watches bytes below HTTP/2 (any frame is bytes read), so frames do not pass through it.
        try channel.pipeline.syncOperations.addHandlers([
            IdleStateHandler(readTimeout: idle),
            WriteCoalescer(),
            NIOHTTP2Handler(mode: .server, connectionConfiguration: configuration),
            ProviderConnectionHandler(
                worker: ProviderRequestWorker(
                    processor: processor, admin: admin, persist: persist, loop: workerLoop(for: channel)),
                certificate: certificate, refusals: refusals),
        ])
        connections.add(channel, kind: .provider)
    }

    /// The connection chose its protocol: its setup deadline no longer applies, and it is no longer the first to
    /// make room when the connection limit is reached.
    private func removeSetupDeadline(_ channel: any Channel) throws {
        let deadline = try channel.pipeline.syncOperations.handler(type: SetupDeadline.self)
        channel.pipeline.syncOperations.removeHandler(deadline, promise: nil)
        connections.setUp(channel)
    }

    /// The loop after the channel's own (its own when there is only one), so connections spread their work evenly.
    private func workerLoop(for channel: any Channel) -> any EventLoop {
        guard let index = eventLoops.firstIndex(where: { $0 === channel.eventLoop }) else { return channel.eventLoop }
        return eventLoops[(index + 1) % eventLoops.count]
    }

    /// HTTP/1.1: the admin API, and the courier WebSocket at `/courier`.
    func configureHTTP1(_ channel: any Channel) throws {
        let (registry, store, channels, refusals, tokenLimit) = (registry, store, channels, refusals, tokenLimit)
        let clock = admin.clock
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 20,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(head.uri == "/courier" ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        CourierFrameRules(refusals: refusals),
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: 64, maxAccumulatedFrameSize: 1 << 20),
                        CourierHandler(
                            registry: registry, store: store, channels: channels, refusals: refusals,
                            tokenLimit: tokenLimit, clock: clock),
                    ])
                }
            }
        )
        let adminHandler = AdminHTTP1Handler(admin: admin, refusals: refusals)
        let deadline = HTTP1RequestDeadline(timeout: setupTimeout)
        let removable = NIOLoopBound((adminHandler, deadline), eventLoop: channel.eventLoop)
        try removeSetupDeadline(channel)
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.syncOperations.removeHandler(removable.value.0, promise: nil)
                    context.pipeline.syncOperations.removeHandler(removable.value.1, promise: nil)
                }
            )
        )
        try channel.pipeline.syncOperations.addHandlers([deadline, adminHandler])
        connections.add(channel, kind: .http1)
    }
}
