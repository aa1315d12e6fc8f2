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

    @Test("a cancelled send ends at once: its stream in flight reset with CANCEL, those waiting never written")
    func cancelledSend() throws {
        let connection = try HandlerFixture()
        try connection.receive(.settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 2)])))
        let cancellation = SendCancellation()
        connection.enqueue(1)
        connection.enqueue(3, cancellation: cancellation)
        #expect(try connection.written().headerStreams == [1, 3])
        cancellation.cancel()
        connection.dropCancelled()
        #expect(try connection.written().resets == [3: .cancel])
        let written = connection.outcomes.compactMap { if case .cancelled(let written) = $0 { written } else { nil } }
        #expect(written.sorted { !$0 && $1 } == [false, false, true], "one was on a stream, two waited: \(written)")
        try connection.answer(stream: 1, status: 200)
        guard connection.outcomes.count == 4, case .answered(status: 200, _)? = connection.outcomes.last else {
            Issue.record("the other send's stream must still be answered: \(connection.outcomes)")
            return
        }
        #expect(try connection.written().headerStreams.isEmpty, "nothing of the cancelled send is written later")
    }
}
