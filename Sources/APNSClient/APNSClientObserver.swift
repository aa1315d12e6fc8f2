public import APNSCore

/// Metrics hooks: a client calls these as it works, on its event loop threads, so they must be quick and must not
/// block. Every method has an empty default.
public protocol APNSClientObserver: Sendable {
    /// A notification was written to a connection (`attempt` 1 for the first time).
    func notificationSent(attempt: Int)
    /// A notification ended; `latency` runs from its first write to its result.
    func notificationFinished(_ notification: APNSNotification, result: APNSResult, latency: Duration)
    /// A notification will be sent again after `delay` because of `reason`.
    func notificationRetried(reason: APNSReason, attempt: Int, delay: Duration)
    /// The streams open on one connection changed, or its limit did: the server's `SETTINGS_MAX_CONCURRENT_STREAMS`,
    /// capped at ``APNSPushClient/Configuration/maximumStreamsPerConnection``.
    func streamsChanged(open: Int, limit: Int)
    /// The number of open connections changed.
    func connectionsChanged(open: Int)
    /// A connection could not be made (each attempt once, however many notifications waited on it).
    func connectionFailed(reason: String)
    /// A connection measured the network's round trip (a PING sent as it opened, and its answer).
    func roundTripMeasured(_ roundTrip: Duration)
}

extension APNSClientObserver {
    public func notificationSent(attempt: Int) {}
    public func notificationFinished(_ notification: APNSNotification, result: APNSResult, latency: Duration) {}
    public func notificationRetried(reason: APNSReason, attempt: Int, delay: Duration) {}
    public func streamsChanged(open: Int, limit: Int) {}
    public func connectionsChanged(open: Int) {}
    public func connectionFailed(reason: String) {}
    public func roundTripMeasured(_ roundTrip: Duration) {}
}

/// The observer that ignores everything.
struct SilentObserver: APNSClientObserver {}
