import APNSGateway
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization
import TestPacing

/// An HTTP/2 server over TLS on a free port that answers every request `200` and records, in the order they arrive,
/// the stream IDs of the frames that end requests: what any APNs server sees of a client's order.
final class StreamOrderServer: Sendable {
    let port: Int
    let caCertificatePEM: String
    private let channel: any Channel
    private let ended: Recorded

    final class Recorded: Sendable {
        let streamIDs = Mutex<[Int]>([])
    }

    /// The stream IDs of the requests, in the order their last frame arrived.
    var requestEnds: [Int] { ended.streamIDs.withLock { $0 } }

    private init(port: Int, caCertificatePEM: String, channel: any Channel, ended: Recorded) {
        self.port = port
        self.caCertificatePEM = caCertificatePEM
        self.channel = channel
        self.ended = ended
    }

    static func start() async throws -> StreamOrderServer {
        ServerSlots.requireSlot("an HTTP/2 server")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("order-\(UUID().uuidString)")
        let authority = try LocalCertificateAuthority.loadOrCreate(in: directory)
        let key = try String(contentsOf: directory.appendingPathComponent("server-key.pem"), encoding: .utf8)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(authority.serverCertificatePEM.utf8))
                .map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let ended = Recorded()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        NIOSSLServerHandler(context: context), NIOHTTP2Handler(mode: .server), Answerer(ended: ended),
                    ])
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return StreamOrderServer(
            port: channel.localAddress?.port ?? 0, caCertificatePEM: authority.caCertificatePEM, channel: channel,
            ended: ended)
    }

    func stop() async throws {
        try await channel.close()
    }

    /// Records each request's end and answers it at once.
    private final class Answerer: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame
        typealias OutboundOut = HTTP2Frame
        let ended: Recorded

        init(ended: Recorded) { self.ended = ended }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            let endsRequest: Bool
            switch frame.payload {
            case .headers(let headers): endsRequest = headers.endStream
            case .data(let data): endsRequest = data.endStream
            default: endsRequest = false
            }
            guard endsRequest else { return }
            ended.streamIDs.withLock { $0.append(Int(frame.streamID)) }
            let answer = HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200"], endStream: true))
            context.write(wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: answer)), promise: nil)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            context.flush()
        }
    }
}
