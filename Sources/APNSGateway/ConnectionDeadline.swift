import NIOCore
import NIOHTTP1

/// A timer that closes its connection when it fires, unless re-armed or cancelled first.
struct ClosingTimer {
    private var scheduled: Scheduled<Void>?

    /// Closes the connection `delay` from now (replacing an earlier deadline).
    mutating func arm(_ context: ChannelHandlerContext, in delay: TimeAmount) {
        scheduled?.cancel()
        let channel = context.channel
        scheduled = context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
    }

    mutating func cancel() {
        scheduled?.cancel()
        scheduled = nil
    }
}

/// A handler that closes its connection `timeout` after it joins the pipeline, unless removed first.
protocol ClosingDeadline: AnyObject, ChannelHandler {
    var timeout: TimeAmount { get }
    var timer: ClosingTimer { get set }
}

extension ClosingDeadline {
    func handlerAdded(context: ChannelHandlerContext) {
        timer.arm(context, in: timeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer.cancel()
    }
}

/// Closes a connection that has not chosen its protocol in time: the TLS handshake, ALPN and (without ALPN) the
/// first bytes must all happen within the deadline. ``GatewayPipelines`` removes it once the protocol is set up, so
/// sockets that connect and say nothing cannot pile up.
final class SetupDeadline: ChannelInboundHandler, RemovableChannelHandler, ClosingDeadline {
    typealias InboundIn = NIOAny

    let timeout: TimeAmount
    var timer = ClosingTimer()

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }
}

/// HTTP/1.1's header timeout: the first request head must arrive within the deadline of the connection's start, each
/// request's body within three times that, and the next request within six times that of the previous one's end
/// (an idle keep-alive connection), else the connection closes: a client that trickles a header byte by byte or
/// keeps idle connections holds no socket for long. Removed when the connection becomes a courier WebSocket.
final class HTTP1RequestDeadline: ChannelInboundHandler, RemovableChannelHandler, ClosingDeadline {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    let timeout: TimeAmount
    var timer = ClosingTimer()

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: timer.arm(context, in: timeout * 3)
        case .end: timer.arm(context, in: timeout * 6)
        case .body: break
        }
        context.fireChannelRead(data)
    }
}
