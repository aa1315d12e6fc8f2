import APNSCore
import HeraldHTTP2
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// Opens a connection: TCP, TLS with ALPN `h2` (the server must agree), then HTTP/2 with the client's handler.
struct ConnectionBootstrap: Sendable {
    let endpoint: APNSEndpoint
    let sslContext: NIOSSLContext
    let connectTimeout: Duration

    /// HTTP/2 as a client of APNs: no server push; header lists are built by the client and APNs' answers are read
    /// leniently, so the library's per-header validation is skipped (it was a tenth of the client's time).
    static let http2Configuration: NIOHTTP2Handler.ConnectionConfiguration = {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = [
            HTTP2Setting(parameter: .enablePush, value: 0),
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
        ]
        configuration.headerBlockValidation = .disabled
        configuration.contentLengthValidation = .disabled
        return configuration
    }()

    /// TLS 1.2 or later, the system's roots plus the endpoint's extra CA, and the client certificate if there is one.
    static func makeSSLContext(
        endpoint: APNSEndpoint, authentication: APNSClientAuthentication
    ) throws(APNSClientError) -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        if let pem = endpoint.additionalTrustRootsPEM {
            do {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))]
            } catch {
                throw APNSClientError("the CA to trust is not a PEM certificate: \(error)")
            }
        }
        if case .certificate(let certificate) = authentication {
            tls.certificateChain = certificate.chain.map { .certificate($0) }
            tls.privateKey = .privateKey(certificate.privateKey)
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw APNSClientError("cannot set up TLS: \(error)")
        }
    }

    /// Connects on `loop` and installs `handler` once HTTP/2 is agreed; a failure at any step reaches the handler's
    /// ``APNSConnectionHandler/failedToConnect(_:)``.
    func connect(on loop: any EventLoop, handler: NIOLoopBoundBox<APNSConnectionHandler>) {
        let endpoint = endpoint
        let sslContext = sslContext
        let serverName = endpoint.host.isIPAddress ? nil : endpoint.host
        let seconds = connectTimeout.components.seconds
        ClientBootstrap(group: loop)
            .connectTimeout(.seconds(max(1, seconds)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let recorder = ConnectionErrorRecorder(handler: handler, endpoint: endpoint.description)
                    let alpn = ApplicationProtocolNegotiationHandler { result, channel in
                        guard case .negotiated("h2") = result else {
                            handler.value.recordConnectionError(
                                APNSClientError(
                                    "\(endpoint) did not agree to HTTP/2 (ALPN h2); APNs speaks only HTTP/2"))
                            return channel.close()
                        }
                        return channel.eventLoop.makeCompletedFuture {
                            channel.pipeline.syncOperations.removeHandler(recorder, promise: nil)
                            try channel.pipeline.syncOperations.addHandlers([
                                WriteCoalescer(),
                                handler.value.flushGate,
                                NIOHTTP2Handler(mode: .client, connectionConfiguration: Self.http2Configuration),
                                handler.value,
                            ])
                        }
                    }
                    try channel.pipeline.syncOperations.addHandlers([
                        try NIOSSLClientHandler(context: sslContext, serverHostname: serverName), alpn, recorder,
                    ])
                }
            }
            .connect(host: endpoint.connectAddress.host, port: endpoint.connectAddress.port)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    channel.closeFuture.whenComplete { _ in
                        handler.value.failedToConnect(
                            APNSClientError("the connection to \(endpoint) closed during TLS"))
                    }
                case .failure(let error):
                    handler.value.failedToConnect(
                        APNSClientError("cannot connect to \(endpoint): \(Self.explain(error))"))
                }
            }
    }

    /// Why a connect failed, in words: the `errno` of the attempts, not NIO's description of them.
    static func explain(_ error: any Error) -> String {
        let codes: [Int32]
        if let connection = error as? NIOConnectionError {
            codes = connection.connectionErrors.compactMap { ($0.error as? IOError)?.errnoCode }
            if connection.dnsAAAAError != nil, connection.dnsAError != nil, connection.connectionErrors.isEmpty {
                return "the host name does not resolve"
            }
        } else if let io = error as? IOError {
            codes = [io.errnoCode]
        } else if case ChannelError.connectTimeout = error {
            return "no answer within the connect timeout (is the host reachable, is a firewall dropping it?)"
        } else {
            codes = []
        }
        switch codes.first {
        case ECONNREFUSED?: return "nothing is listening there (connection refused)"
        case EHOSTUNREACH?, ENETUNREACH?: return "the host is unreachable"
        case ETIMEDOUT?: return "no answer (is the host reachable, is a firewall dropping it?)"
        default: return "\(error)"
        }
    }
}

/// Catches the error that ends a connection before HTTP/2 starts (TLS: an untrusted certificate, a wrong host name),
/// so the notifications waiting for it fail with that error.
private final class ConnectionErrorRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any
    let handler: NIOLoopBoundBox<APNSConnectionHandler>
    let endpoint: String

    init(handler: NIOLoopBoundBox<APNSConnectionHandler>, endpoint: String) {
        self.handler = handler
        self.endpoint = endpoint
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        handler.value.recordConnectionError(ConnectionSetupError.tls(error, endpoint: endpoint))
        context.close(promise: nil)
    }
}

extension String {
    /// Whether the text is an IPv4 or IPv6 address (which TLS cannot use as a server name).
    var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
