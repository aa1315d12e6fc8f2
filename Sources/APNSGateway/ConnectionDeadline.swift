import NIOCore
import NIOHTTP1

/// Closes a connection that has not chosen its protocol in time: the TLS handshake, ALPN and (without ALPN) the
/// first bytes must all happen within the deadline. ``GatewayPipelines`` removes it once the protocol is set up, so
/// sockets that connect and say nothing cannot pile up.
final class SetupDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }
}

/// HTTP/1.1's header timeout: the first request head must arrive within the deadline of the connection's start, each
/// request's body within three times that, and the next request within six times that of the previous one's end
/// (an idle keep-alive connection), else the connection closes: a client that trickles a header byte by byte or
/// keeps idle connections holds no socket for long. Removed when the connection becomes a courier WebSocket.
final class HTTP1RequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context, in: timeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(context, in: timeout * 3)
        case .end: arm(context, in: timeout * 6)
        case .body: break
        }
        context.fireChannelRead(data)
    }

    private func arm(_ context: ChannelHandlerContext, in delay: TimeAmount) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
    }
}
