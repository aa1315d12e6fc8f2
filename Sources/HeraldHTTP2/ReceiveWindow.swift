package import NIOHTTP2

/// How a frame-level HTTP/2 handler (the client's and the gateway's) keeps its receive windows open: when NIOHTTP2
/// reports that a window fell below half its target, the `WINDOW_UPDATE` that fills it again.
package struct ReceiveWindow: Sendable {
    /// The connection's window the handler keeps open.
    package let connectionTarget: Int
    /// Each stream's window the handler keeps open.
    package let streamTarget: Int

    /// - Parameters:
    ///   - connectionTarget: the connection's window (1 MiB by default, so many streams' bodies fit at once).
    ///   - streamTarget: a stream's window (HTTP/2's default, 65,535 bytes).
    package init(connectionTarget: Int = 1 << 20, streamTarget: Int = 65535) {
        self.connectionTarget = connectionTarget
        self.streamTarget = streamTarget
    }

    /// The `WINDOW_UPDATE` to send for `event`, or `nil` while the window is at least half its target.
    package func update(for event: NIOHTTP2WindowUpdatedEvent) -> HTTP2Frame? {
        guard let size = event.inboundWindowSize else { return nil }
        let target = event.streamID == .rootStream ? connectionTarget : streamTarget
        guard size < target / 2 else { return nil }
        return HTTP2Frame(streamID: event.streamID, payload: .windowUpdate(windowSizeIncrement: target - size))
    }
}
