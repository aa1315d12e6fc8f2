import NIOCore
import NIOWebSocket

/// Checks each frame a device sends before fragments are joined (joining drops the mask and the reserved bits):
/// RFC 6455 §5.1-5.2 says a client masks every frame, sets no reserved bit when no extension was agreed, and uses no
/// reserved opcode. A frame that breaks a rule fails the connection: a close frame with 1002, then the socket closes.
final class CourierFrameRules: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private static let knownOpcodes: [WebSocketOpcode] = [
        .continuation, .text, .binary, .connectionClose, .ping, .pong,
    ]
    private let refusals: GatewayRefusals
    private var failed = false

    init(refusals: GatewayRefusals) {
        self.refusals = refusals
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let frame = unwrapInboundIn(data)
        guard frame.maskKey != nil, !frame.rsv1, !frame.rsv2, !frame.rsv3, Self.knownOpcodes.contains(frame.opcode)
        else {
            failed = true
            refusals.record(
                .courierFrame, peer: context.channel.remoteAddress,
                "frame with opcode \(frame.opcode), masked \(frame.maskKey != nil), reserved bits \(frame.rsv1 || frame.rsv2 || frame.rsv3)"
            )
            var reason = context.channel.allocator.buffer(capacity: 2)
            reason.write(webSocketErrorCode: .protocolError)
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: reason)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in loopBound.value.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }
}
