package import NIOCore

/// Sits between TLS and HTTP/2 and gathers the bytes written between two flushes into one buffer, so TLS seals them
/// as one record instead of one record per HTTP/2 frame.
///
/// NIOHTTP2 writes every frame as a buffer of its own, and NIOSSL encrypts each write separately: an answer of one
/// `HEADERS` frame (about 50 bytes) became a TLS record with its own header, tag and seal, and a copy of NIOHTTP2's
/// shared encoding buffer. Gathered, a flush of 16 answers is one record. On one connection with 100 concurrent
/// streams it took SwiftNIO alone (`Benchmarks/HTTP2Floor`) from 60,000 to 73,000 answers a second
/// (`Benchmarks/gateway-h2load.sh`).
///
/// Order is kept: a write that is not a buffer (a file region) first passes what was gathered. What is gathered also
/// passes on at ``maximumGathered`` bytes, before a close, and when the handler is removed; each write's promise
/// completes with the write that carried its bytes.
package final class WriteCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = IOData
    package typealias OutboundOut = IOData

    /// Gathered bytes pass on without waiting for a flush past this size (TLS cuts records of 16 KiB anyway).
    package static let maximumGathered = 64 * 1024

    private var gathered: ByteBuffer?
    private var promise: EventLoopPromise<Void>?

    package init() {}

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(var bytes) = unwrapOutboundIn(data) else {
            passGathered(context: context)
            context.write(data, promise: promise)
            return
        }
        if gathered == nil {
            gathered = context.channel.allocator.buffer(capacity: max(bytes.readableBytes, 2048))
        }
        gathered!.writeBuffer(&bytes)
        if let promise {
            if let first = self.promise { first.futureResult.cascade(to: promise) } else { self.promise = promise }
        }
        if gathered!.readableBytes >= Self.maximumGathered { passGathered(context: context) }
    }

    package func flush(context: ChannelHandlerContext) {
        passGathered(context: context)
        context.flush()
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        passGathered(context: context)
        context.close(mode: mode, promise: promise)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        passGathered(context: context)
    }

    private func passGathered(context: ChannelHandlerContext) {
        guard let bytes = gathered else { return }
        let promise = self.promise
        gathered = nil
        self.promise = nil
        context.write(wrapOutboundOut(.byteBuffer(bytes)), promise: promise)
    }
}
