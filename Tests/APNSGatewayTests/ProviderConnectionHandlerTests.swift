import APNSCore
import Foundation
import HeraldHTTP2
import HeraldTime
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import APNSGateway

/// The gateway's connection handler on an `EmbeddedChannel`, with time that moves when the test says.
@Suite("ProviderConnectionHandler on an embedded channel: IdleTimeout, receive windows")
struct ProviderConnectionHandlerTests {
    @Test("a connection NIO finds idle (nothing read for the idle time) gets GOAWAY IdleTimeout, then is closed")
    func idleTimeout() throws {
        // NIO's IdleStateHandler measures in real time, so the test hands the handler its event rather than waiting.
        let channel = try Self.channel()
        channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        channel.embeddedEventLoop.run()
        let frame = try #require(try channel.readOutbound(as: HTTP2Frame.self))
        guard case .goAway(let lastStreamID, let code, let data?) = frame.payload else {
            Issue.record("not a GOAWAY with a reason: \(frame)")
            return
        }
        #expect(lastStreamID == .maxID && code == .noError)
        #expect(try APNSErrorResponse(data: Data(data.readableBytesView)).reason == .idleTimeout)
        #expect(!channel.isActive)
    }

    @Test("the receive window is topped up below half, for the connection and for a stream; a full one is left")
    func windowTopUp() throws {
        let channel = try Self.channel()
        for (stream, size) in [
            (HTTP2StreamID.rootStream, ProviderConnectionHandler.receiveWindow.connectionTarget / 2 - 1),
            (HTTP2StreamID(1), 5120),
            (HTTP2StreamID(3), ProviderConnectionHandler.receiveWindow.streamTarget),
        ] {
            channel.pipeline.fireUserInboundEventTriggered(
                NIOHTTP2WindowUpdatedEvent(streamID: stream, inboundWindowSize: size, outboundWindowSize: nil))
        }
        channel.pipeline.fireChannelReadComplete()
        var updates: [Int: Int] = [:]
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
            if case .windowUpdate(let increment) = frame.payload { updates[Int(frame.streamID)] = increment }
        }
        #expect(updates[0] == ProviderConnectionHandler.receiveWindow.connectionTarget / 2 + 1)
        #expect(updates[1] == ProviderConnectionHandler.receiveWindow.streamTarget - 5120)
        #expect(updates[3] == nil)
    }

    @Test(
        "a stream-level error (a stream's window overflowed, or grown by 0) resets that stream only; the rest goes on")
    func streamErrorCostsOnlyTheStream() throws {
        var client = RawHTTP2Client()
        let (channel, frames) = try Self.exchange([
            try client.headers(stream: 1, endStream: false),
            RawHTTP2Client.frame(type: 8, stream: 1, payload: [0x7f, 0xff, 0xff, 0xff]),
            try client.headers(stream: 3, endStream: false),
            RawHTTP2Client.frame(type: 8, stream: 3, payload: [0, 0, 0, 0]),
            try client.headers(stream: 5, endStream: true),
            RawHTTP2Client.frame(type: 6, stream: 0, payload: Array("pingpong".utf8)),
        ])
        let resets = frames.filter { $0.type == 3 }.map { ($0.stream, $0.payload) }
        #expect(resets.map(\.0) == [1, 3])
        #expect(resets.first?.1 == [0, 0, 0, 3])  // FLOW_CONTROL_ERROR
        #expect(resets.last?.1 == [0, 0, 0, 1])  // PROTOCOL_ERROR
        #expect(!frames.contains { $0.type == 7 }, "no GOAWAY")
        #expect(frames.contains { $0.type == 1 && $0.stream == 5 }, "stream 5 is answered")
        #expect(frames.contains { $0.type == 6 && $0.flags == 1 && $0.payload == Array("pingpong".utf8) })
        #expect(channel.isActive)
    }

    @Test("a connection error (the connection's window grown by 0) is answered with GOAWAY and closes the connection")
    func connectionErrorCloses() throws {
        var client = RawHTTP2Client()
        let (channel, frames) = try Self.exchange([
            try client.headers(stream: 1, endStream: false),
            RawHTTP2Client.frame(type: 8, stream: 0, payload: [0, 0, 0, 0]),
        ])
        let goAway = frames.first { $0.type == 7 }
        #expect(goAway?.payload.dropFirst(4).prefix(4).elementsEqual([0, 0, 0, 1]) == true)  // PROTOCOL_ERROR
        #expect(!channel.isActive)
    }

    /// Sends the preface and `frames` as bytes through NIOHTTP2's server handler and the gateway's handler; the
    /// channel and every frame written back.
    static func exchange(_ frames: [ByteBuffer]) throws -> (EmbeddedChannel, [RawHTTP2Client.Frame]) {
        let channel = try channel()
        try channel.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server), position: .first)
        try channel.writeInbound(RawHTTP2Client().preface())
        for frame in frames { try channel.writeInbound(frame) }
        channel.embeddedEventLoop.run()
        var written = ByteBuffer()
        while var bytes = try channel.readOutbound(as: ByteBuffer.self) { written.writeBuffer(&bytes) }
        return (channel, RawHTTP2Client.frames(in: written))
    }

    /// The pipeline the gateway builds after the HTTP/2 handler, over in-memory state.
    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: EmbeddedEventLoop())
        let (registry, store, faults) = (DeviceRegistry(), NotificationStore(), InjectedFaults())
        let credential = try AdminCredential.loadOrCreate(
            in: FileManager.default.temporaryDirectory.appendingPathComponent("handler-\(UUID())"))
        let worker = ProviderRequestWorker(
            processor: ProviderRequestProcessor(
                registry: registry, keys: ProviderKeys(), store: store, faults: faults,
                defaultEnvironment: .development, clock: SystemWallClock()),
            admin: AdminRequestProcessor(
                registry: registry, store: store, keys: ProviderKeys(), faults: faults, credential: credential,
                certificateAuthority: nil, clock: SystemWallClock()),
            persist: { true }, loop: channel.embeddedEventLoop)
        try channel.pipeline.syncOperations.addHandler(
            ProviderConnectionHandler(
                worker: worker, certificate: .none, refusals: GatewayRefusals(logger: Logger(label: "test"))))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
        return channel
    }
}

/// An HTTP/2 client that writes frames as bytes, so a test can send what a well-behaved client never would.
struct RawHTTP2Client {
    /// One frame as read back.
    struct Frame {
        var type: UInt8
        var flags: UInt8
        var stream: UInt32
        var payload: [UInt8]
    }

    private var encoder = HPACKEncoder(allocator: ByteBufferAllocator())

    /// The connection preface and an empty SETTINGS frame.
    func preface() -> ByteBuffer {
        var buffer = ByteBuffer(string: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        buffer.writeImmutableBuffer(Self.frame(type: 4, stream: 0, payload: []))
        return buffer
    }

    /// A HEADERS frame opening `stream` with a push request (no provider token).
    mutating func headers(stream: UInt32, endStream: Bool) throws -> ByteBuffer {
        var block = ByteBuffer()
        try encoder.encode(
            headers: [
                ":method": "POST", ":scheme": "https", ":authority": "localhost",
                ":path": "/3/device/"
                    + String(repeating: "ab", count: 32), "apns-topic": "com.example.app",
            ], to: &block)
        return Self.frame(
            type: 1, flags: endStream ? 0x5 : 0x4, stream: stream, payload: Array(block.readableBytesView))
    }

    /// A frame with its 9-byte header.
    static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32, payload: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(payload.count) << 8 | UInt32(type))
        buffer.writeInteger(flags)
        buffer.writeInteger(stream)
        buffer.writeBytes(payload)
        return buffer
    }

    /// The whole frames in `bytes` (a test reads everything the server wrote).
    static func frames(in bytes: ByteBuffer) -> [Frame] {
        var bytes = bytes
        var frames: [Frame] = []
        while let head = bytes.readInteger(as: UInt32.self), let flags = bytes.readInteger(as: UInt8.self),
            let stream = bytes.readInteger(as: UInt32.self), let payload = bytes.readBytes(length: Int(head >> 8))
        {
            frames.append(Frame(type: UInt8(head & 0xff), flags: flags, stream: stream & 0x7fff_ffff, payload: payload))
        }
        return frames
    }
}
