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
    /// Whether the connection's measured round trip (its PING as it opened) is past ``localRoundTrip``: then every
    /// stream the server allows is kept busy from the start, instead of growing there window by window.
    private var far = false
    private var windowStart: NIODeadline
    private var answered = 0
    /// The fastest answer in the window: the round trip, without the time a request waited behind others.
    private var fastest: TimeAmount?

    init(now: NIODeadline) {
        windowStart = now
    }

    /// A PING round trip from this on is far: the server's whole stream limit is used from the start. Higher than
    /// ``localRoundTrip``, for a server busy as the connection opens can answer a loopback PING in a few milliseconds.
    static let farRoundTrip = TimeAmount.milliseconds(10)

    /// The connection's PING came back after `roundTrip`. Far away, the target is the server's limit (ramping there
    /// costs a few round trips, 6% of a 50,000-notification send at 50 ms) until an answer comes back faster than
    /// ``localRoundTrip``; nearer, nothing changes.
    mutating func roundTripMeasured(_ roundTrip: TimeAmount) {
        guard roundTrip >= Self.farRoundTrip else { return }
        far = true
        target = Int(Int32.max)
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
        if far, let fastest, fastest < Self.localRoundTrip {
            far = false  // the PING was slow, the server is near: back to what the rate asks for
            target = Self.floor
        }
        if far {
            target = max(1, limit)
            return target
        }
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
