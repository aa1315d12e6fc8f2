import APNSCore
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Synchronization

@testable import APNSClient

/// One handler on an embedded channel, with what it handed back to its pool.
final class HandlerFixture {
    let channel: EmbeddedChannel
    private let handler: APNSConnectionHandler
    private let handedBack = HandedBack()
    private let load = ConnectionLoad()

    init(
        pingInterval: Duration = .seconds(60), pingTimeout: Duration = .seconds(10),
        observer: any APNSClientObserver = SilentObserver()
    ) throws {
        let loop = EmbeddedEventLoop()
        channel = EmbeddedChannel(loop: loop)
        let handedBack = handedBack
        handler = APNSConnectionHandler(
            authority: "api.sandbox.push.apple.com", tokens: nil, load: load, observer: observer,
            pingInterval: pingInterval, pingTimeout: pingTimeout, streamCap: 100, loop: loop,
            events: ConnectionEvents(
                finished: { batch in handedBack.outcomes.withLock { $0 += batch.map(\.outcome) } },
                stoppedTakingWork: { handedBack.stopped.store(true, ordering: .relaxed) }))
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
    }

    var outcomes: [AttemptOutcome] { handedBack.outcomes.withLock { $0 } }
    var stoppedTakingWork: Bool { handedBack.stopped.load(ordering: .relaxed) }

    /// Hands `count` notifications to the connection, each due within `deadline` of the channel's time.
    func enqueue(_ count: Int, deadline: TimeAmount = .seconds(30), cancellation: SendCancellation? = nil) {
        let batch = (0..<count).map { _ in
            PendingNotification(
                notification: APNSNotification(
                    deviceToken: String(repeating: "ab", count: 32), headers: APNSRequestHeaders(topic: "com.example"),
                    payload: ByteBuffer(string: #"{"aps":{}}"#)),
                deadline: channel.embeddedEventLoop.now + deadline, cancellation: cancellation, onResult: { _ in })
        }
        load.outstanding.add(count, ordering: .relaxed)
        handler.enqueue(batch)
        channel.embeddedEventLoop.run()
    }

    /// What the pool asks of every connection when a send is cancelled.
    func dropCancelled() {
        handler.dropCancelled()
        channel.embeddedEventLoop.run()
    }

    func receive(_ payload: HTTP2Frame.FramePayload, stream: HTTP2StreamID = .rootStream) throws {
        try channel.writeInbound(HTTP2Frame(streamID: stream, payload: payload))
        channel.pipeline.fireChannelReadComplete()
        channel.embeddedEventLoop.run()
    }

    /// APNs' answer on `stream`: its status and `apns-id`, no body.
    func answer(stream: Int, status: Int) throws {
        let headers = HPACKHeaders([(":status", "\(status)"), ("apns-id", "00000000-0000-0000-0000-000000000001")])
        try receive(.headers(.init(headers: headers, endStream: true)), stream: HTTP2StreamID(stream))
    }

    func advance(by amount: TimeAmount) {
        channel.embeddedEventLoop.advanceTime(by: amount)
        channel.embeddedEventLoop.run()
    }

    /// Every frame written since the last call.
    func written() throws -> WrittenFrames {
        var frames: [HTTP2Frame] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) { frames.append(frame) }
        return WrittenFrames(frames: frames)
    }
}

/// The round trips the handler reported.
final class RoundTripWatcher: APNSClientObserver {
    let measured = Mutex<[Duration]>([])
    func roundTripMeasured(_ roundTrip: Duration) { measured.withLock { $0.append(roundTrip) } }
}

/// What the handler told its pool.
final class HandedBack: Sendable {
    let outcomes = Mutex<[AttemptOutcome]>([])
    let stopped = Atomic<Bool>(false)
}

/// Frames the handler wrote, sorted by kind.
struct WrittenFrames {
    let frames: [HTTP2Frame]

    var isEmpty: Bool { frames.isEmpty }

    var headerStreams: [Int] {
        frames.compactMap { frame in
            if case .headers = frame.payload { Int(frame.streamID) } else { nil }
        }
    }

    /// Keep-alive PINGs.
    var pings: Int {
        frames.count {
            if case .ping(let data, ack: false) = $0.payload {
                data != APNSConnectionHandler.roundTripProbe
            } else {
                false
            }
        }
    }

    /// PINGs that measure the round trip.
    var probes: Int {
        frames.count {
            if case .ping(let data, ack: false) = $0.payload {
                data == APNSConnectionHandler.roundTripProbe
            } else {
                false
            }
        }
    }

    var goAways: Int {
        frames.count { if case .goAway = $0.payload { true } else { false } }
    }

    var resets: [Int: HTTP2ErrorCode] {
        var resets: [Int: HTTP2ErrorCode] = [:]
        for frame in frames { if case .rstStream(let code) = frame.payload { resets[Int(frame.streamID)] = code } }
        return resets
    }

    var windowUpdates: [Int: Int] {
        var updates: [Int: Int] = [:]
        for frame in frames {
            if case .windowUpdate(let increment) = frame.payload { updates[Int(frame.streamID)] = increment }
        }
        return updates
    }
}
