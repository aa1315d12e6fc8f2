package import NIOHTTP2

/// Tells a stream error from a connection error in a frame-level HTTP/2 handler (no stream multiplexer), so a stream
/// error costs only its stream.
///
/// NIOHTTP2 reports both alike: the underlying error, through `errorCaught`. A stream error (a stream's window
/// overflowed or grown by 0, a body longer than its `content-length`, a malformed header block) it answers with
/// `RST_STREAM`, and reports that stream's `StreamClosedEvent`, with the reset's code, just before the error. A
/// connection error it answers with `GOAWAY` and no reset: the handler must close the connection, as after any other
/// error (TLS, I/O).
///
/// The handler tells the filter what it sees, in order: ``peerReset(_:)`` for each `RST_STREAM` frame it reads,
/// ``streamClosed(_:)`` for each `StreamClosedEvent`, ``ownReset()`` after writing a reset itself, and ``readComplete()``
/// at the end of each read; ``isStreamError()`` then answers for each error.
package struct StreamErrorFilter: Sendable {
    /// NIOHTTP2 has just reset a stream for a stream error; the error it reports next is that one.
    private var streamJustReset = false
    /// The stream of the last `RST_STREAM` the peer sent (its `StreamClosedEvent` is no stream error of ours).
    private var streamResetByPeer: HTTP2StreamID?

    package init() {}

    /// The peer sent `RST_STREAM` for `stream`.
    package mutating func peerReset(_ stream: HTTP2StreamID) {
        streamResetByPeer = stream
    }

    /// NIOHTTP2 reported a stream closed.
    package mutating func streamClosed(_ event: StreamClosedEvent) {
        // `cancel` is how a GOAWAY ends the streams above its last stream ID; nil is an ordinary end.
        if let reason = event.reason, reason != .cancel, event.streamID != streamResetByPeer {
            streamJustReset = true
        }
    }

    /// The handler wrote a reset of its own (its `StreamClosedEvent` explains no error).
    package mutating func ownReset() {
        streamJustReset = false
    }

    /// A read ended: a reset seen in it explains no later error.
    package mutating func readComplete() {
        streamJustReset = false
    }

    /// Whether the error just reported is a stream error NIOHTTP2 already answered with `RST_STREAM` (keep the
    /// connection), rather than a connection error or another failure (close it).
    package mutating func isStreamError() -> Bool {
        defer { streamJustReset = false }
        return streamJustReset
    }
}
