import NIOCore

/// How many streams one connection keeps in flight: enough for the rate it reaches times the round trip, never fewer
/// than ``floor`` and never more than the server allows. The part of ``APNSConnectionHandler`` that decides, apart
/// from the handler, so it is tested on its own.
///
/// Across the internet a connection carries at most (streams in flight) / (round-trip time): at 50 ms, 100 streams
/// allow 2,000 notifications a second and APNs' 1,000 allow 20,000. On loopback more streams than the client can
/// fill only cost HTTP/2 bookkeeping (measured: 100 streams 12% faster than 1,000). So every window (at least 50 ms
/// and a round trip and a quarter) the target becomes ``headroom`` times what the window's rate times the fastest answer in it
/// asks for: while the target is what holds the connection back, that multiplies it each window; once the rate stops
/// growing (the server's limit, the CPU), it settles where rate × round trip says.
struct InFlightTarget {
    /// The fewest streams aimed at: enough for a loopback or data-centre round trip.
    static let floor = 100
    /// The shortest window the rate is measured over.
    static let shortestWindow = TimeAmount.milliseconds(50)
    /// How much above rate × round trip the target is set: while the target holds the connection back, the target
    /// grows by this factor each window.
    static let headroom = 4.0
    /// A round trip below this is local (loopback, one data centre): ``floor`` streams carry more than a connection
    /// can send there, and more would only cost bookkeeping.
    static let localRoundTrip = TimeAmount.milliseconds(2)

    /// The streams to keep in flight now (the server's limit still applies on top).
    private(set) var target = InFlightTarget.floor
    private var windowStart: NIODeadline
    private var answered = 0
    /// The fastest answer in the window: the round trip, without the time a request waited behind others.
    private var fastest: TimeAmount?

    init(now: NIODeadline) {
        windowStart = now
    }

    /// An answer came `latency` after its request was written.
    mutating func answered(latency: TimeAmount) {
        answered += 1
        if fastest.map({ latency < $0 }) ?? true { fastest = latency }
    }

    /// Re-evaluates the target at the end of a window; `limit` is the server's current stream limit.
    ///
    /// - Returns: the target, changed or not.
    @discardableResult
    mutating func evaluate(at now: NIODeadline, limit: Int) -> Int {
        let elapsed = now - windowStart
        guard let fastest, elapsed >= max(Self.shortestWindow, .nanoseconds(fastest.nanoseconds / 4 * 5)) else {
            return target
        }
        let seconds = Double(elapsed.nanoseconds) / 1e9
        let roundTrip = Double(fastest.nanoseconds) / 1e9
        let wanted = fastest < Self.localRoundTrip ? 0 : Double(answered) / seconds * roundTrip * Self.headroom
        target = min(max(Self.floor, Int(min(wanted, 1e6))), max(1, limit))
        windowStart = now
        answered = 0
        self.fastest = nil
        return target
    }
}
