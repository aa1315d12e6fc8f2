import NIOCore

/// When the client pings a quiet connection, and when a PING left unanswered ends it: the keep-alive part of
/// ``APNSConnectionHandler``, apart from the handler so it is tested on its own.
struct KeepAlive {
    /// What the handler does on a tick.
    enum Action: Equatable {
        case none
        /// Send a PING (the connection was quiet for the interval).
        case ping
        /// Close the connection: the server did not answer a PING within the timeout.
        case close(reason: String)
    }

    /// How long the connection may stay quiet before a PING.
    let interval: TimeAmount
    /// How long a PING may go unanswered.
    let timeout: TimeAmount
    private var lastRead: NIODeadline
    private var pingSentAt: NIODeadline?

    init(interval: TimeAmount, timeout: TimeAmount, now: NIODeadline) {
        self.interval = interval
        self.timeout = timeout
        self.lastRead = now
    }

    /// Something was read.
    mutating func read(at now: NIODeadline) {
        lastRead = now
    }

    /// The server answered the PING.
    mutating func pingAnswered() {
        pingSentAt = nil
    }

    /// What to do at `now`; `canPing` is false while the connection is not open for streams (starting, draining).
    mutating func tick(at now: NIODeadline, canPing: Bool) -> Action {
        if let sentAt = pingSentAt {
            return now - sentAt > timeout ? .close(reason: "the server did not answer a PING within \(timeout)") : .none
        }
        guard canPing, now - lastRead > interval else { return .none }
        pingSentAt = now
        return .ping
    }
}
