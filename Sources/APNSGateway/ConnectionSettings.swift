import NIOCore
import NIOHTTP2
import Synchronization

/// A connection's advertised stream limit: one stream until the first valid provider token, then
/// ``authenticatedStreamLimit``, as observed of APNs.
final class ConnectionSettings: Sendable {
    /// The limit before authentication.
    static let initialStreamLimit = 1
    /// The limit after the first valid token.
    static let authenticatedStreamLimit = 1000

    private let channel: any Channel
    private let raised = Mutex(false)

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Sends SETTINGS with the higher limit, once. Safe from any thread.
    func raiseStreamLimitOnce() {
        let first = raised.withLock { raised in
            defer { raised = true }
            return !raised
        }
        guard first else { return }
        let settings = HTTP2Frame(
            streamID: .rootStream,
            payload: .settings(
                .settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.authenticatedStreamLimit)]))
        )
        channel.writeAndFlush(settings, promise: nil)
    }
}
