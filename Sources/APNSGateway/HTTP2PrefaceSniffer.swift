import NIOCore

/// For a TLS client that named no protocol in ALPN: looks at its first bytes and starts HTTP/2 when they are the
/// HTTP/2 connection preface, HTTP/1.1 otherwise.
///
/// APNs serves HTTP/2 to clients that speak it with prior knowledge and no ALPN (aioapns, for one, sets none), so the
/// gateway must too.
final class HTTP2PrefaceSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The bytes every HTTP/2 connection starts with (RFC 9113, 3.4).
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private let pipelines: GatewayPipelines
    private var buffered: ByteBuffer?

    init(pipelines: GatewayPipelines) {
        self.pipelines = pipelines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffered == nil {
            buffered = incoming
        } else {
            buffered!.writeBuffer(&incoming)
        }
        let bytes = buffered!.readableBytesView
        let compared = min(bytes.count, Self.preface.count)
        let matches = bytes.prefix(compared).elementsEqual(Self.preface.prefix(compared))
        guard !matches || compared == Self.preface.count else { return }
        do {
            if matches {
                try pipelines.configureHTTP2(context.channel)
            } else {
                try pipelines.configureHTTP1(context.channel)
            }
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        let data = buffered!
        buffered = nil
        context.fireChannelRead(wrapInboundOut(data))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
