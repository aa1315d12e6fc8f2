import HeraldHTTP2
import NIOHTTP2
import Testing

/// The shared HTTP/2 helpers of the client's and the gateway's frame handlers, on their own.
@Suite("StreamErrorFilter and ReceiveWindow: what a frame-level HTTP/2 handler decides")
struct StreamErrorFilterTests {
    @Test("an error right after NIOHTTP2 reset a stream with a code is that stream's; any other error is not")
    func streamOrConnection() {
        var filter = StreamErrorFilter()
        do {
            let answer = filter.isStreamError();
            #expect(!answer, "an error with no reset before it: a connection error")
        }
        filter.streamClosed(StreamClosedEvent(streamID: 1, reason: .flowControlError))
        do { let answer = filter.isStreamError(); #expect(answer) }
        do { let answer = filter.isStreamError(); #expect(!answer, "one reset explains one error") }

        filter.streamClosed(StreamClosedEvent(streamID: 3, reason: nil))
        do { let answer = filter.isStreamError(); #expect(!answer, "a stream that ended normally explains nothing") }
        filter.streamClosed(StreamClosedEvent(streamID: 5, reason: .cancel))
        do { let answer = filter.isStreamError(); #expect(!answer, "streams a GOAWAY cancels explain nothing") }

        filter.peerReset(7)
        filter.streamClosed(StreamClosedEvent(streamID: 7, reason: .protocolError))
        do { let answer = filter.isStreamError(); #expect(!answer, "the peer's own reset explains nothing") }

        filter.streamClosed(StreamClosedEvent(streamID: 9, reason: .protocolError))
        filter.ownReset()
        do { let answer = filter.isStreamError(); #expect(!answer, "the handler's own reset explains nothing") }

        filter.streamClosed(StreamClosedEvent(streamID: 11, reason: .protocolError))
        filter.readComplete()
        do { let answer = filter.isStreamError(); #expect(!answer, "a reset from an earlier read explains nothing") }
    }

    @Test("a window below half its target is filled to the target; the connection and a stream have their own")
    func windowUpdates() {
        let window = ReceiveWindow(connectionTarget: 1000, streamTarget: 100)
        func increment(_ stream: HTTP2StreamID, _ size: Int?) -> Int? {
            let event = NIOHTTP2WindowUpdatedEvent(streamID: stream, inboundWindowSize: size, outboundWindowSize: nil)
            guard case .windowUpdate(let increment)? = window.update(for: event)?.payload else { return nil }
            return increment
        }
        #expect(increment(.rootStream, 499) == 501)
        #expect(increment(.rootStream, 500) == nil)
        #expect(increment(1, 49) == 51)
        #expect(increment(1, 50) == nil)
        #expect(increment(1, nil) == nil)
    }
}
