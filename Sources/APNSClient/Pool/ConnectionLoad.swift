import Synchronization

/// What the pool reads of a connection from any thread to choose where to send: how much it carries, how much its
/// server allows, and whether it still takes work.
final class ConnectionLoad: Sendable {
    /// Notifications handed to the connection and not yet back (in flight or waiting for a stream).
    let outstanding = Atomic<Int>(0)
    /// The server's `SETTINGS_MAX_CONCURRENT_STREAMS`, or a guess until its first SETTINGS arrive.
    let streamLimit = Atomic<Int>(ConnectionLoad.assumedStreamLimit)
    /// False once the connection goes away (GOAWAY, closed, failed to connect).
    let takesWork = Atomic<Bool>(true)

    /// What a connection is assumed to allow before its server says, so one new connection takes a first burst
    /// instead of the pool opening many at once.
    static let assumedStreamLimit = 100

    /// Streams still free, as far as the pool can tell.
    var room: Int { streamLimit.load(ordering: .relaxed) - outstanding.load(ordering: .relaxed) }
}
