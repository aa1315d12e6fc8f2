package import APNSCore
import Courier
package import Foundation
package import HeraldSupport
package import HeraldTime
package import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket
import Synchronization

/// The local APNs: Apple's provider API (device pushes and broadcasts) over HTTP/2 and TLS, the admin API, and the
/// device courier, on one port; Apple's channel management API on a second one when ``Configuration/managePort`` is
/// set.
///
/// ```swift
/// let gateway = try GatewayServer(configuration: .init(dataDirectory: dir), verifier: verifier)
/// let port = try await gateway.start()
/// ```
///
/// ALPN `h2` gets the provider and admin APIs; `http/1.1` gets the admin API and the courier WebSocket (`/courier`).
package final class GatewayServer: Sendable {
    /// Where and how the gateway listens.
    package struct Configuration: Sendable {
        /// The address to bind.
        package var host = "127.0.0.1"
        /// The port to bind; 0 picks a free one. APNs' alternate port 2197 by default.
        package var port = 2197
        /// The channel management API's port (Apple's development port is 2195); 0 picks a free one, `nil` serves
        /// no channel management.
        package var managePort: Int?
        /// The most broadcast channels an app may have in one environment.
        package var channelLimitPerApp = 10_000
        /// Where the CA, certificates, tokens and stored notifications live.
        package var dataDirectory: URL
        /// The environment for host names that are not Apple's.
        package var environment = APNSEnvironment.development
        /// A provider connection with no frame for this long gets `GOAWAY` with `IdleTimeout` and is closed.
        package var idleTimeout: Duration = .seconds(3600)
        /// The TLS handshake and the choice of protocol must be done this soon after a connection opens; an HTTP/1.1
        /// request head must arrive this soon after the previous request (its body within three times this).
        package var setupTimeout: Duration = .seconds(10)
        /// The most connections open at once (providers, devices and admin clients together); one over it is closed
        /// as soon as it is accepted.
        package var maxConnections = 10_000
        /// New device tokens one source address may create per minute (courier and admin API together).
        package var tokenCreationsPerMinute = 1_000_000
        /// The gateway's clock: provider token ages, stored and received times, the token creation limit (tests move it).
        package var clock: any WallClock = SystemWallClock()
        /// Admin calls need no token. Only for a gateway on a loopback address (`--insecure-admin`).
        package var insecureAdmin = false
        /// Where refusals are logged (``GatewayRefusals``).
        package var logger = Logger(label: "herald-gateway")
        /// Whether devices, stored notifications and channels are kept in `DATA/journal` across restarts. `false` is
        /// the load-test mode (`--no-journal`): nothing of them is read from or written to disk, so a push costs no
        /// disk write and a million of them fill no disk, and everything is lost when the gateway stops.
        package var journal = true
        /// Where pushes that carry a `traceparent` are traced (`herald gateway --otlp-endpoint`); `nil`: off.
        package var tracer: HeraldTracer?

        package init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
        }
    }

    /// The configuration.
    package let configuration: Configuration
    /// The tokens the gateway issued.
    package let registry: DeviceRegistry
    /// Store-and-forward, with the delivery log.
    package let store: NotificationStore
    /// The broadcast channels and their subscribers.
    package let channels: ChannelRegistry
    /// The provider keys it trusts.
    package let keys: ProviderKeys
    /// Failures armed for tests (`POST /admin/faults`).
    package let faults = InjectedFaults()
    /// The local CA.
    package let certificateAuthority: LocalCertificateAuthority
    /// Who may use the admin API: the token in `DATA/admin-token`.
    package let adminCredential: AdminCredential
    /// What was refused, logged and counted.
    package let refusals: GatewayRefusals
    /// What `GET /admin/metrics` reports.
    let metrics: GatewayMetrics
    /// `nil` in the load-test mode (``Configuration/journal`` `false`).
    private let journal: GatewayJournal?
    private let group: MultiThreadedEventLoopGroup
    private let listeners = Mutex<[any Channel]>([])
    private let boundManagementPort = Mutex<Int?>(nil)
    private let fanOut = BroadcastFanOut()
    private let connections: GatewayConnections
    private let flusher = Mutex<Task<Void, Never>?>(nil)
    /// Whether ``shutdown()`` was called.
    private let stopped = Mutex(false)
    /// One limit for every port, so a source cannot get more by using both.
    private let tokenLimit: TokenCreationLimit

    /// A gateway that accepts tokens signed by `verifier`'s keys, with what `configuration.dataDirectory` holds.
    ///
    /// - Throws: when the CA, the admin token or the journal cannot be made or read under the data directory;
    ///   ``GatewayDataError`` for `insecureAdmin` on an address other than loopback.
    package init(configuration: Configuration, verifier: APNSProviderTokenVerifier = APNSProviderTokenVerifier()) throws
    {
        if configuration.insecureAdmin, !Self.isLoopback(configuration.host) {
            throw GatewayDataError(
                "--insecure-admin opens the admin API to anyone who reaches the port; it is allowed only with a "
                    + "loopback --host (127.0.0.1, ::1 or localhost), not \(configuration.host)")
        }
        self.configuration = configuration
        self.keys = ProviderKeys(verifier)
        self.connections = GatewayConnections(limit: configuration.maxConnections)
        let metrics = GatewayMetrics()
        self.metrics = metrics
        self.refusals = GatewayRefusals(logger: configuration.logger, metrics: metrics)
        self.tokenLimit = TokenCreationLimit(
            perMinute: configuration.tokenCreationsPerMinute, clock: configuration.clock)
        try PrivateFile.makeDirectory(configuration.dataDirectory)
        self.adminCredential = try AdminCredential.loadOrCreate(
            in: configuration.dataDirectory, insecure: configuration.insecureAdmin)
        self.certificateAuthority = try LocalCertificateAuthority.loadOrCreate(in: configuration.dataDirectory)
        let journal =
            configuration.journal
            ? try GatewayJournal(
                directory: configuration.dataDirectory, logger: configuration.logger,
                written: { metrics.journalWritten($0) }) : nil
        self.journal = journal
        let recovered = journal?.recovered ?? GatewayJournal.Recovered()
        self.registry = DeviceRegistry(
            devices: recovered.devices,
            changed: { devices, replacing throws(GatewayDataError) in
                try journal?.record(devices, replacing: replacing)
            })
        self.store = NotificationStore(changed: { journal?.markChanged($0) })
        for notification in recovered.stored { store.restore(notification) }
        self.channels = ChannelRegistry(
            channels: recovered.channels, disabled: recovered.disabledApps,
            limitPerApp: configuration.channelLimitPerApp, log: store.log, changed: { journal?.markChanged($0) })
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    }

    /// The port the channel management API listens on, once started (`nil` when it serves none).
    package var managementPort: Int? { boundManagementPort.withLock { $0 } }

    /// Binds and starts serving.
    ///
    /// - Returns: the bound port of the push API.
    package func start() async throws -> Int {
        let tls = try makeTLSContext()
        let port = try await listen(api: .push, port: configuration.port, tls: tls)
        if let managePort = configuration.managePort {
            do {
                let bound = try await listen(api: .channelManagement, port: managePort, tls: tls)
                boundManagementPort.withLock { $0 = bound }
            } catch {
                for listener in listeners.withLock({ $0 }) { try? await listener.close() }
                throw ChannelManagementListenFailure(port: managePort, underlying: error)
            }
        }
        startFlusher()
        return port
    }

    /// The channel management port could not be bound (the push port was closed again).
    package struct ChannelManagementListenFailure: Error, CustomStringConvertible {
        /// The port asked for.
        package let port: Int
        /// What binding it threw.
        package let underlying: any Error

        package var description: String { "the channel management API cannot listen on port \(port): \(underlying)" }
    }

    /// Binds one port serving `api` (and the admin API and the courier).
    private func listen(api: ProviderRequestProcessor.API, port: Int, tls: NIOSSLContext) async throws -> Int {
        let processor = ProviderRequestProcessor(
            api: api, registry: registry, channels: channels, fanOut: fanOut, keys: keys, store: store, faults: faults,
            defaultEnvironment: configuration.environment, clock: configuration.clock, metrics: metrics,
            tracer: configuration.tracer)
        let admin = AdminRequestProcessor(
            registry: registry, store: store, channels: channels, keys: keys, faults: faults,
            credential: adminCredential, certificateAuthority: certificateAuthority, refusals: refusals,
            tokenLimit: tokenLimit, journal: journal != nil, clock: configuration.clock,
            exposition: { [metrics, registry, store, connections, journal] in
                metrics.exposition(
                    devices: registry.count, stored: store.storedCount, online: store.onlineCount,
                    connections: connections.openCount, journalBytes: journal?.size)
            })
        let (journal, store, registry, channels) = (self.journal, self.store, self.registry, self.channels)
        let pipelines = GatewayPipelines(
            processor: processor,
            persist: { journal?.flush(from: store, registry: registry, channels: channels) ?? true },
            admin: admin, registry: registry, store: store, channels: channels, tokenLimit: tokenLimit,
            idleTimeout: configuration.idleTimeout, setupTimeout: TimeAmount(configuration.setupTimeout),
            connections: connections, refusals: refusals, eventLoops: Array(group.makeIterator()))
        let (connections, refusals) = (connections, refusals)
        let setupTimeout = TimeAmount(configuration.setupTimeout)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                switch connections.admit(channel) {
                case .admitted: break
                case .shed(let oldest):
                    refusals.record(
                        .connectionLimit, peer: oldest.remoteAddress,
                        "closed while still setting up: \(connections.limit) connections were open and a new one came")
                case .refused:
                    refusals.record(
                        .connectionLimit, peer: channel.remoteAddress, "\(connections.limit) connections are open")
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SetupDeadline(timeout: setupTimeout))
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    try channel.pipeline.syncOperations.addHandler(
                        ApplicationProtocolNegotiationHandler { result, channel in
                            channel.eventLoop.makeCompletedFuture {
                                switch result {
                                case .negotiated("h2"): try pipelines.configureHTTP2(channel)
                                case .negotiated: try pipelines.configureHTTP1(channel)
                                case .fallback:
                                    try channel.pipeline.syncOperations.addHandler(
                                        HTTP2PrefaceSniffer(pipelines: pipelines))
                                }
                            }
                        })
                }
            }
            .bind(host: configuration.host, port: port)
            .get()
        listeners.withLock { $0.append(channel) }
        return channel.localAddress?.port ?? port
    }

    /// Stops listening, sends every provider connection `GOAWAY` with reason `Shutdown`, closes every connection, and
    /// writes what is stored to the journal.
    package func shutdown() async throws {
        // A second call (a test that stopped it already, a harness stopping it again) has nothing to do: its event
        // loops are gone, and closing a listener on them would never complete.
        guard
            stopped.withLock({ stopped in
                defer { stopped = true }
                return !stopped
            })
        else { return }
        for listener in listeners.withLock({ $0 }) { try? await listener.close() }
        await connections.closeAll()
        let task = flusher.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        journal?.flush(from: store, registry: registry, channels: channels)
        journal?.close()
        try await group.shutdownGracefully()
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    private func startFlusher() {
        guard let journal else { return }
        let store = store
        let registry = registry
        let channels = channels
        let task = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: GatewayJournal.flushInterval)
                journal.flush(from: store, registry: registry, channels: channels)
            }
        }
        flusher.withLock { $0 = task }
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(
            bytes: Array(certificateAuthority.serverCertificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(certificateAuthority.serverKeyPEM.utf8), format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2", "http/1.1"]
        tls.certificateVerification = .optionalVerification
        tls.trustRoots = .certificates([
            try NIOSSLCertificate(bytes: Array(certificateAuthority.caCertificatePEM.utf8), format: .pem)
        ])
        return try NIOSSLContext(configuration: tls)
    }
}
