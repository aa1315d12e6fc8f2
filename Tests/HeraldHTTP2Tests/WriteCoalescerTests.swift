import HeraldHTTP2
import NIOCore
import NIOEmbedded
import Testing

/// What leaves a WriteCoalescer, seen from the transport below it (TLS in Herald's pipelines).
@Suite("WriteCoalescer: the bytes written between two flushes leave as one write, in order")
struct WriteCoalescerTests {
    /// Records what reaches the transport, flushed or not, and what happens to it.
    private final class Below: ChannelOutboundHandler {
        typealias OutboundIn = IOData
        var events: [String] = []

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .byteBuffer(let bytes) = unwrapOutboundIn(data) { events.append("write \(bytes.readableBytes)") }
            context.write(data, promise: promise)
        }

        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            events.append("close")
            context.close(mode: mode, promise: promise)
        }
    }

    private func channel(below: Below = Below()) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([below, WriteCoalescer()])
        return channel
    }

    private func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// The promise's outcome so far, without blocking the embedded loop: `nil` while it is pending.
    private func outcome(_ promise: EventLoopPromise<Void>) -> Result<Void, any Error>? {
        nonisolated(unsafe) var result: Result<Void, any Error>?
        promise.futureResult.whenComplete { result = $0 }
        return result
    }

    @Test("three writes and a flush: one buffer below, every promise succeeded, nothing before the flush")
    func gathersUntilFlush() throws {
        let channel = try channel()
        let promises = (0..<3).map { _ in channel.eventLoop.makePromise(of: Void.self) }
        for (index, text) in ["HEADERS", "DATA", "HEADERS2"].enumerated() {
            channel.write(bytes(text), promise: promises[index])
        }
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "nothing passes before the flush")
        channel.flush()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == bytes("HEADERSDATAHEADERS2"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        for promise in promises {
            guard case .success = outcome(promise) else {
                Issue.record("a write's promise did not succeed with the flush")
                continue
            }
        }
        _ = try channel.finish()
    }

    @Test("a file region passes what was gathered before it, so the order written is the order sent")
    func keepsOrderAroundFileRegions() throws {
        let channel = try channel()
        channel.write(bytes("before"), promise: nil)
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: -1)
        defer { _ = try? handle.takeDescriptorOwnership() }
        let region = FileRegion(fileHandle: handle, readerIndex: 0, endIndex: 0)
        channel.write(IOData.fileRegion(region), promise: nil)
        channel.write(bytes("after"), promise: nil)
        channel.flush()
        #expect(try channel.readOutbound(as: IOData.self) == .byteBuffer(bytes("before")))
        guard case .fileRegion = try channel.readOutbound(as: IOData.self) else {
            Issue.record("the file region did not come second")
            return
        }
        #expect(try channel.readOutbound(as: IOData.self) == .byteBuffer(bytes("after")))
    }

    @Test("past 64 KiB gathered the bytes pass on without a flush; at 64 KiB - 1 they wait")
    func passesLargeWrites() throws {
        let below = Below()
        let channel = try channel(below: below)
        channel.write(ByteBuffer(repeating: 1, count: WriteCoalescer.maximumGathered - 1), promise: nil)
        #expect(below.events.isEmpty)
        channel.write(ByteBuffer(repeating: 2, count: 1), promise: nil)
        #expect(below.events == ["write \(WriteCoalescer.maximumGathered)"])
        _ = try channel.finish()
    }

    @Test("a close passes what was gathered first, with its promise")
    func passesBeforeClose() throws {
        let below = Below()
        let channel = try channel(below: below)
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.write(bytes("GOAWAY"), promise: promise)
        #expect(outcome(promise) == nil, "pending until flushed or closed")
        _ = try? channel.close().wait()
        #expect(
            below.events == ["write 6", "close"], "the gathered bytes, with their promise, went down before the close")
    }
}
