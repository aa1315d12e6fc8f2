public import APNSCore
public import Foundation
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// The local APNs: Apple's provider API over HTTP/2 and TLS, answering as APNs does.
///
/// ```swift
/// let gateway = GatewayServer(configuration: .init(dataDirectory: dir), verifier: verifier)
/// let port = try await gateway.start()
/// ```
public final class GatewayServer: Sendable {
    /// Where and how the gateway listens.
    public struct Configuration: Sendable {
        /// The address to bind.
        public var host = "127.0.0.1"
        /// The port to bind; 0 picks a free one. APNs' alternate port 2197 by default.
        public var port = 2197
        /// Where the CA, certificates and stored notifications live.
        public var dataDirectory: URL
        /// The environment for host names that are not Apple's.
        public var environment = APNSEnvironment.development

        public init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The tokens the gateway issued.
    public let registry: DeviceRegistry
    /// The local CA, once started.
    public let certificateAuthority: LocalCertificateAuthority
    private let verifier: APNSProviderTokenVerifier
    private let group: MultiThreadedEventLoopGroup
    private let channelBox = Mutex<(any Channel)?>(nil)

    /// A gateway that accepts tokens signed by `verifier`'s keys.
    ///
    /// - Throws: when the CA cannot be made or read under the data directory.
    public init(
        configuration: Configuration,
        verifier: APNSProviderTokenVerifier,
        registry: DeviceRegistry = DeviceRegistry()
    ) throws {
        self.configuration = configuration
        self.verifier = verifier
        self.registry = registry
        self.certificateAuthority = try LocalCertificateAuthority.loadOrCreate(in: configuration.dataDirectory)
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    }

    /// Binds and starts serving.
    ///
    /// - Returns: the bound port.
    public func start() async throws -> Int {
        let tls = try makeTLSContext()
        let processor = ProviderRequestProcessor(
            registry: registry,
            verifier: verifier,
            defaultEnvironment: configuration.environment,
            now: { Date() }
        )
        let admin = AdminRequestProcessor(registry: registry, now: { Date() })
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture(withResultOf: {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    let connection = ConnectionAuthentication()
                    let settings = ConnectionSettings(channel: channel)
                    var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
                    connectionConfiguration.initialSettings = [
                        HTTP2Setting(parameter: .maxConcurrentStreams, value: ConnectionSettings.initialStreamLimit),
                        HTTP2Setting(parameter: .maxHeaderListSize, value: 8000),
                    ]
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server,
                        connectionConfiguration: connectionConfiguration,
                        streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture(withResultOf: {
                            try stream.pipeline.syncOperations.addHandler(
                                ProviderStreamHandler(
                                    processor: processor, admin: admin, connection: connection, settings: settings)
                            )
                        })
                    }
                })
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        channelBox.withLock { $0 = channel }
        return channel.localAddress?.port ?? configuration.port
    }

    /// Stops listening and closes every connection.
    public func shutdown() async throws {
        let channel = channelBox.withLock { $0 }
        try await channel?.close()
        try await group.shutdownGracefully()
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(
            bytes: Array(certificateAuthority.serverCertificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(certificateAuthority.serverKeyPEM.utf8), format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        return try NIOSSLContext(configuration: tls)
    }
}
