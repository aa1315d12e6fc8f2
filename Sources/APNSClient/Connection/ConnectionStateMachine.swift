import NIOHTTP2

/// Where one client connection is in its life, and the streams it may open: the part of ``APNSConnectionHandler``
/// that decides, apart from the handler that does, so it is tested on its own.
///
/// A connection is `starting` until the server's first SETTINGS, `open` while it takes work, `draining` once a GOAWAY
/// arrived or a graceful close was asked for (no new streams; it closes when the last answer is in), then `closed`.
struct ConnectionStateMachine {
    enum State: Equatable {
        case starting
        case open
        case draining
        case closed
    }

    /// What ``openStream(inFlight:)`` allows.
    enum Opening: Equatable {
        /// Open this stream.
        case stream(HTTP2StreamID)
        /// No stream now: not open, or at the server's limit.
        case none
        /// Stream IDs are used up: the connection must drain, and a new one take the work.
        case idsExhausted
    }

    private(set) var state = State.starting
    /// The streams the connection may have open at once: the server's `SETTINGS_MAX_CONCURRENT_STREAMS`, at most
    /// ``streamCap``.
    private(set) var streamLimit = 0
    /// The most streams this client opens on one connection whatever the server allows.
    let streamCap: Int
    private var nextStreamID: Int32 = 1

    init(streamCap: Int) {
        self.streamCap = max(1, streamCap)
    }

    /// Whether new work may be queued (not draining or closed).
    var takesWork: Bool { state == .starting || state == .open }

    /// The server's SETTINGS: the new stream limit. The first SETTINGS opens the connection (without the setting, the
    /// cap applies).
    mutating func settingsReceived(_ settings: HTTP2Settings) -> Int {
        var limit = state == .starting ? streamCap : streamLimit
        for setting in settings where setting.parameter == .maxConcurrentStreams {
            limit = min(setting.value, streamCap)
        }
        streamLimit = limit
        if state == .starting { state = .open }
        return limit
    }

    /// The next stream to open with `inFlight` streams open now.
    mutating func openStream(inFlight: Int) -> Opening {
        guard state == .open, inFlight < streamLimit else { return .none }
        guard nextStreamID < Int32.max - 2 else { return .idsExhausted }
        defer { nextStreamID += 2 }
        return .stream(HTTP2StreamID(nextStreamID))
    }

    /// Stops taking work; `true` when draining began now (the handler hands the waiting work back once).
    mutating func startDraining() -> Bool {
        guard takesWork else { return false }
        state = .draining
        return true
    }

    /// Whether a draining connection with no stream left closes now (and it is then closed).
    mutating func closeIfDrained(streamsLeft: Bool) -> Bool {
        guard state == .draining, !streamsLeft else { return false }
        state = .closed
        return true
    }

    /// The connection closed or failed; `true` when it was not closed before (the handler stops taking work once).
    mutating func close() -> Bool {
        guard state != .closed else { return false }
        state = .closed
        return true
    }
}
