import APNSCore
import Foundation
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
            (HTTP2StreamID.rootStream, ProviderConnectionHandler.connectionWindow / 2 - 1), (HTTP2StreamID(1), 5120),
            (HTTP2StreamID(3), ProviderConnectionHandler.streamWindow),
        ] {
            channel.pipeline.fireUserInboundEventTriggered(
                NIOHTTP2WindowUpdatedEvent(streamID: stream, inboundWindowSize: size, outboundWindowSize: nil))
        }
        channel.pipeline.fireChannelReadComplete()
        var updates: [Int: Int] = [:]
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
            if case .windowUpdate(let increment) = frame.payload { updates[Int(frame.streamID)] = increment }
        }
        #expect(updates[0] == ProviderConnectionHandler.connectionWindow / 2 + 1)
        #expect(updates[1] == ProviderConnectionHandler.streamWindow - 5120)
        #expect(updates[3] == nil)
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
                defaultEnvironment: .development, now: { Date() }),
            admin: AdminRequestProcessor(
                registry: registry, store: store, keys: ProviderKeys(), faults: faults, credential: credential,
                certificateAuthority: nil, now: { Date() }),
            persist: {}, loop: channel.embeddedEventLoop)
        try channel.pipeline.syncOperations.addHandler(
            ProviderConnectionHandler(
                worker: worker, certificate: .none, refusals: GatewayRefusals(logger: Logger(label: "test"))))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
        return channel
    }
}
