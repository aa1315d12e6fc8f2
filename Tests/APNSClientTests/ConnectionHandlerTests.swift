import APNSCore
import HeraldHTTP2
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Synchronization
import Testing

@testable import APNSClient

/// The client's connection handler alone, on an `EmbeddedChannel`: frames in, frames out, and time that moves only
/// when the test says. What a real server would take seconds to show (a PING never answered, a deadline) takes none.
@Suite("APNSConnectionHandler on an embedded channel: stream limits, PING, deadlines, GOAWAY, windows")
struct ConnectionHandlerTests {
    @Test("nothing is written before the server's SETTINGS; then as many streams as it allows, the rest as they free")
    func streamLimitFromSettings() throws {
        let connection = try HandlerFixture()
        connection.enqueue(3)
        #expect(try connection.written().isEmpty, "no stream before SETTINGS")
        try connection.receive(.settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 2)])))
        #expect(try connection.written().headerStreams == [1, 3])
        try connection.answer(stream: 1, status: 200)
        #expect(connection.outcomes.count == 1)
        #expect(try connection.written().headerStreams == [5], "the freed stream is used at once")
        // The server lowers its limit: no new stream until fewer are open.
        try connection.receive(.settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 1)])))
        connection.enqueue(1)
        #expect(try connection.written().headerStreams.isEmpty)
        try connection.answer(stream: 3, status: 200)
        #expect(try connection.written().headerStreams.isEmpty, "stream 5 still uses the one allowed")
        try connection.answer(stream: 5, status: 200)
        #expect(try connection.written().headerStreams == [7])
    }

    @Test("a quiet connection is sent a PING; without an answer in time it closes and its streams are lost")
    func pingTimeout() throws {
        let connection = try HandlerFixture(pingInterval: .seconds(60), pingTimeout: .seconds(10))
        try connection.receive(.settings(.settings([])))
        connection.enqueue(1, deadline: .seconds(300))
        _ = try connection.written()
        connection.advance(by: .seconds(59))
        #expect(try connection.written().pings == 0)
        connection.advance(by: .seconds(2))
        #expect(try connection.written().pings == 1, "one PING after 60 s with nothing read")
        connection.advance(by: .seconds(9))
        #expect(connection.channel.isActive, "still waiting for the PING's answer")
        connection.advance(by: .seconds(2))
        #expect(!connection.channel.isActive, "no answer within 10 s: closed")
        guard case .lost(let reason)? = connection.outcomes.first else {
            Issue.record("the stream in flight was not handed back as lost: \(connection.outcomes)")
            return
        }
        #expect(reason.contains("PING"), "\(reason)")
    }

    @Test("a PING answered keeps the connection open, and the next one waits for another quiet minute")
    func pingAnswered() throws {
        let connection = try HandlerFixture(pingInterval: .seconds(60), pingTimeout: .seconds(10))
        try connection.receive(.settings(.settings([])))
        connection.advance(by: .seconds(61))
        #expect(try connection.written().pings == 1)
        try connection.receive(.ping(HTTP2PingData(), ack: true))
        connection.advance(by: .seconds(30))
        #expect(connection.channel.isActive)
        #expect(try connection.written().pings == 0)
    }

    @Test("as it opens, the connection measures the round trip with one PING, apart from the keep-alive's")
    func roundTripProbe() throws {
        let watcher = RoundTripWatcher()
        let connection = try HandlerFixture(pingInterval: .seconds(60), pingTimeout: .seconds(10), observer: watcher)
        try connection.receive(.settings(.settings([])))
        #expect(try connection.written().probes == 1)
        connection.advance(by: .milliseconds(150))
        try connection.receive(.ping(HTTP2PingData(), ack: true))
        #expect(watcher.measured.withLock { $0 }.isEmpty, "a keep-alive's answer measures nothing")
        try connection.receive(.ping(APNSConnectionHandler.roundTripProbe, ack: true))
        #expect(watcher.measured.withLock { $0 } == [.milliseconds(150)])
        try connection.receive(.ping(APNSConnectionHandler.roundTripProbe, ack: true))
        #expect(watcher.measured.withLock { $0 }.count == 1, "an answer nobody asked for is ignored")
        try connection.receive(.settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 5)])))
        #expect(try connection.written().probes == 0, "later SETTINGS send no probe")
        connection.advance(by: .seconds(30))
        #expect(connection.channel.isActive)
    }

    @Test("a stream past its deadline is reset with CANCEL and ends DeadlineExceeded; one waiting for a stream too")
    func deadlines() throws {
        let connection = try HandlerFixture()
        try connection.receive(.settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 1)])))
        connection.enqueue(1, deadline: .seconds(5))
        connection.enqueue(1, deadline: .seconds(3))
        #expect(try connection.written().headerStreams == [1])
        connection.advance(by: .milliseconds(3100))
        #expect(connection.outcomes.count == 1, "the one waiting for a stream ran out first")
        connection.advance(by: .seconds(2))
        let frames = try connection.written()
        #expect(frames.resets == [1: .cancel])
        #expect(connection.outcomes.count == 2)
        #expect(connection.outcomes.allSatisfy { if case .deadlineExceeded = $0 { true } else { false } })
    }

    @Test("GOAWAY: streams above its last stream go back unprocessed, the rest finish, then the client closes")
    func goAwayDrains() throws {
        let connection = try HandlerFixture()
        try connection.receive(.settings(.settings([])))
        connection.enqueue(2)
        #expect(try connection.written().headerStreams == [1, 3])
        try connection.receive(.goAway(lastStreamID: 1, errorCode: .noError, opaqueData: nil))
        #expect(connection.stoppedTakingWork)
        guard case .notProcessed(let reason)? = connection.outcomes.first else {
            Issue.record("stream 3 was not handed back unprocessed: \(connection.outcomes)")
            return
        }
        #expect(reason.contains("GOAWAY"))
        connection.enqueue(1)
        guard case .notProcessed? = connection.outcomes.last, connection.outcomes.count == 2 else {
            Issue.record("new work on a draining connection must go back at once: \(connection.outcomes)")
            return
        }
        #expect(connection.channel.isActive, "stream 1 is still answered")
        try connection.answer(stream: 1, status: 200)
        #expect(try connection.written().goAways == 1)
        #expect(!connection.channel.isActive)
    }

    @Test("the receive window is topped up when less than half is left, for the connection and for a stream")
    func windowTopUp() throws {
        let connection = try HandlerFixture()
        try connection.receive(.settings(.settings([])))
        let root = NIOHTTP2WindowUpdatedEvent(
            streamID: .rootStream, inboundWindowSize: APNSConnectionHandler.receiveWindow.connectionTarget / 2 - 1,
            outboundWindowSize: nil)
        connection.channel.pipeline.fireUserInboundEventTriggered(root)
        let stream = NIOHTTP2WindowUpdatedEvent(
            streamID: HTTP2StreamID(1), inboundWindowSize: 1000, outboundWindowSize: nil)
        connection.channel.pipeline.fireUserInboundEventTriggered(stream)
        let plenty = NIOHTTP2WindowUpdatedEvent(
            streamID: HTTP2StreamID(3), inboundWindowSize: APNSConnectionHandler.receiveWindow.streamTarget,
            outboundWindowSize: nil)
        connection.channel.pipeline.fireUserInboundEventTriggered(plenty)
        connection.advance(by: .milliseconds(100))
        let updates = try connection.written().windowUpdates
        #expect(updates[0] == APNSConnectionHandler.receiveWindow.connectionTarget / 2 + 1)
        #expect(updates[1] == APNSConnectionHandler.receiveWindow.streamTarget - 1000)
        #expect(updates[3] == nil, "a full window is left alone")
    }
}

/// One handler on an embedded channel, with what it handed back to its pool.
private final class HandlerFixture {
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
    func enqueue(_ count: Int, deadline: TimeAmount = .seconds(30)) {
        let batch = (0..<count).map { _ in
            PendingNotification(
                notification: APNSNotification(
                    deviceToken: String(repeating: "ab", count: 32), headers: APNSRequestHeaders(topic: "com.example"),
                    payload: ByteBuffer(string: #"{"aps":{}}"#)),
                deadline: channel.embeddedEventLoop.now + deadline, onResult: { _ in })
        }
        load.outstanding.add(count, ordering: .relaxed)
        handler.enqueue(batch)
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
private final class RoundTripWatcher: APNSClientObserver {
    let measured = Mutex<[Duration]>([])
    func roundTripMeasured(_ roundTrip: Duration) { measured.withLock { $0.append(roundTrip) } }
}

/// What the handler told its pool.
private final class HandedBack: Sendable {
    let outcomes = Mutex<[AttemptOutcome]>([])
    let stopped = Atomic<Bool>(false)
}

/// Frames the handler wrote, sorted by kind.
private struct WrittenFrames {
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
