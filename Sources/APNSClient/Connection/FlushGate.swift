import NIOCore

/// Sits between TLS and HTTP/2 and holds back the flushes the connection asks HTTP/2 for while it writes streams.
///
/// NIOHTTP2 sends a flush's DATA frames in the order of a `Set`, so the requests of one flush end (and APNs answers
/// them) in shuffled order; NIOHTTP2 then removes each answered stream from the middle of its stream tables, which costs
/// time in proportion to the streams open. So the connection flushes HTTP/2 after every stream (each request's DATA
/// frame leaves in order) inside ``holding(_:)``, and sends the bytes with ``flushHeld()`` every
/// ``APNSConnectionHandler/flushEvery`` streams and at the end of a read. Flushes HTTP/2 makes itself pass at once.
final class FlushGate: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = Any

    private var context: ChannelHandlerContext?
    private var isHolding = false
    private var hasHeldFlush = false

    /// Runs `body` with the flushes it causes held back until ``flushHeld()``.
    func holding(_ body: () -> Void) {
        isHolding = true
        body()
        isHolding = false
    }

    /// Sends what the held flushes left in TLS's buffer.
    func flushHeld() {
        guard hasHeldFlush, let context else { return }
        hasHeldFlush = false
        context.flush()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func flush(context: ChannelHandlerContext) {
        if isHolding {
            hasHeldFlush = true
        } else {
            hasHeldFlush = false
            context.flush()
        }
    }
}
