import Foundation

/// Where a send's time went: the round trip, the streams kept in flight, and the rate those allow, so a user sees
/// whether the network, APNs' stream limit or herald held the send back.
///
/// Across a network one connection carries at most (streams in flight) / (round trip) notifications a second. The
/// round trip is the shortest a connection measured with a PING as it opened (the fastest answer when no PING was
/// answered); the streams in flight on average come from Little's law, the sum of every notification's time in flight
/// over the send's duration.
struct SendTiming {
    /// A round trip shorter than this is local (loopback or one data centre): the network sets no useful limit there.
    static let localRoundTrip = 0.002

    private(set) var answers = 0
    private var secondsInFlight = 0.0
    private var fastestAnswer: Double?
    private var measuredRoundTrip: Double?
    /// The most streams a connection was allowed at once (the server's limit, or `--concurrency`'s share).
    private(set) var streamLimit = 0
    /// The most connections open at once.
    private(set) var connections = 0

    /// The round trip in seconds: measured by PING, else the fastest answer.
    var roundTrip: Double? { measuredRoundTrip ?? fastestAnswer }

    /// Whether ``roundTrip`` was measured by PING rather than taken from the fastest answer.
    var roundTripMeasured: Bool { measuredRoundTrip != nil }

    /// A notification was answered `latency` after it was first written.
    mutating func answered(after latency: Duration) {
        let seconds = Self.seconds(latency)
        answers += 1
        secondsInFlight += seconds
        if fastestAnswer.map({ seconds < $0 }) ?? true { fastestAnswer = seconds }
    }

    /// A connection's PING came back after `roundTrip`.
    mutating func measured(_ roundTrip: Duration) {
        let seconds = Self.seconds(roundTrip)
        if measuredRoundTrip.map({ seconds < $0 }) ?? true { measuredRoundTrip = seconds }
    }

    mutating func streamsAllowed(_ limit: Int) {
        streamLimit = max(streamLimit, limit)
    }

    mutating func connectionsOpen(_ count: Int) {
        connections = max(connections, count)
    }

    /// The streams in flight on average over `seconds`.
    func averageInFlight(over seconds: Double) -> Double {
        secondsInFlight / max(seconds, 1e-9)
    }

    /// The most notifications a second the connections, their stream limit and the round trip allow; `nil` when the
    /// round trip is local or nothing was answered.
    var limitPerSecond: Double? {
        guard let roundTrip, roundTrip >= Self.localRoundTrip, streamLimit > 0 else { return nil }
        return Double(streamLimit * max(connections, 1)) / roundTrip
    }

    /// What held the send back, in words, for a send that reached `rate` over `seconds`.
    func bottleneck(rate: Double, seconds: Double) -> String? {
        guard let roundTrip, answers > 0 else { return nil }
        guard let limit = limitPerSecond else {
            return "the round trip is local (\(Self.milliseconds(roundTrip))): the processors of herald and the server "
                + "set the rate, not the network"
        }
        if rate >= 0.8 * limit {
            return "the server's stream limit and the round trip: more connections (--connections) would go faster"
        }
        let filled = averageInFlight(over: seconds) / Double(streamLimit * max(connections, 1))
        if filled < 0.8 {
            return String(
                format: "herald kept %.0f%% of the allowed streams busy: what it was given to send, or its processor, "
                    + "held it back, not the network", filled * 100)
        }
        return "the server answered more slowly than its fastest answer: it, or the network, is loaded"
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The round trip as text, such as "50.3 ms".
    static func milliseconds(_ seconds: Double) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }
}
