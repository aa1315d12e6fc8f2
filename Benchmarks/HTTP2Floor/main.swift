// The floor under `herald gateway`'s speed (Benchmarks/gateway-h2load.sh): SwiftNIO's HTTP/2 and TLS alone, on one
// event loop with the gateway's transport (frame level, WriteCoalescer, ReceiveWindow), answering every request `200`
// with a fresh `apns-id` and doing nothing else: no checks, store, log or journal. Its distance to nghttpd is the
// libraries'; the gateway's distance to it is Herald's own work per push.
// Usage: HTTP2Floor <port> <certificate.pem> <key.pem>
import Foundation
import HeraldHTTP2
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// Answers each complete request at the frame level, flushing once per read, and keeps the receive windows open as
/// the gateway does.
final class FloorHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame
    private var pending = false
    /// Answers are numbered after a random start: an `apns-id` of the usual length without a random source per answer.
    private var answered = UInt64.random(in: 0..<(1 << 48))

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let ended: Bool
        switch frame.payload {
        case .headers(let headers): ended = headers.endStream
        case .data(let data): ended = data.endStream
        default: ended = false
        }
        guard ended else { return }
        var headers = HPACKHeaders([(":status", "200")])
        answered &+= 1
        let number = String(answered, radix: 16)
        let apnsID = "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - number.count)) + number
        headers.add(name: "apns-id", value: apnsID, indexing: .nonIndexable)
        let head = HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: true))
        context.write(wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: head)), promise: nil)
        pending = true
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let window = event as? NIOHTTP2WindowUpdatedEvent, let update = ReceiveWindow().update(for: window) {
            context.write(wrapOutboundOut(update), promise: nil)
            pending = true
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if pending {
            pending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: HTTP2Floor <port> <certificate.pem> <key.pem>\n".utf8))
    exit(64)
}
var tls = TLSConfiguration.makeServerConfiguration(
    certificateChain: try NIOSSLCertificate.fromPEMFile(arguments[2]).map { .certificate($0) },
    privateKey: .privateKey(try NIOSSLPrivateKey(file: arguments[3], format: .pem)))
tls.applicationProtocols = ["h2"]
let context = try NIOSSLContext(configuration: tls)
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            var configuration = NIOHTTP2Handler.ConnectionConfiguration()
            configuration.initialSettings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000)]
            // As the gateway: its worker checks header blocks itself.
            configuration.headerBlockValidation = .disabled
            try channel.pipeline.syncOperations.addHandlers([
                NIOSSLServerHandler(context: context),
                WriteCoalescer(),
                NIOHTTP2Handler(mode: .server, connectionConfiguration: configuration),
                FloorHandler(),
            ])
        }
    }
    .bind(host: "127.0.0.1", port: port).wait()
print("listening on \(channel.localAddress!)")
try channel.closeFuture.wait()
