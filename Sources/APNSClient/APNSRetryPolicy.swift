/// How often, and how long after, a notification is sent again when APNs' answer allows it.
///
/// Retried: `429 TooManyRequests`, every `500`, `503 ServiceUnavailable` (after an exponential backoff);
/// `503 Shutdown`, a GOAWAY that left the stream unprocessed, `REFUSED_STREAM` and a connection lost before the answer
/// (on a new connection, after the same backoff); `403 ExpiredProviderToken` (with a newly signed token). Never
/// retried: every other reason, for they are final or need a changed request (`BadDeviceToken`, `Unregistered`,
/// `PayloadTooLarge`, `BadTopic`, ...).
public struct APNSRetryPolicy: Hashable, Sendable {
    /// How many times a notification is sent at most, the first time included.
    public var maximumAttempts: Int
    /// The wait before the first retry; it doubles with each retry.
    public var initialBackoff: Duration
    /// The longest wait between two attempts.
    public var maximumBackoff: Duration
    /// Whether answers that may succeed later (`429`, `500`, `503 ServiceUnavailable`) are sent again here. A caller
    /// that keeps its own queue and backoff (the provider) turns it off, so one decision counts every send to APNs;
    /// sends the server never processed (GOAWAY, `REFUSED_STREAM`, `503 Shutdown`) and an expired provider token are
    /// still handled here, since they are not APNs refusing the notification.
    public var retriesAnswers = true
    /// Whether a notification that could not be written because no connection could be made (DNS, TCP, TLS) is
    /// tried again here on a new connection. A caller that waits for APNs itself (the provider, which pauses the app
    /// and sends one probe per backoff step) turns it off, so an outage costs one connection attempt per probe.
    public var retriesUnreachable = true

    public init(
        maximumAttempts: Int = 4,
        initialBackoff: Duration = .milliseconds(100),
        maximumBackoff: Duration = .seconds(30)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// No retries at all.
    public static let none = APNSRetryPolicy(maximumAttempts: 1)

    /// The wait before sending again after `attempts` tries: `initialBackoff × 2^(attempts-1)`, capped at
    /// ``maximumBackoff``, with up to a quarter taken off at random so that many clients do not retry in step.
    public func backoff(afterAttempts attempts: Int) -> Duration {
        let exponent = min(max(attempts - 1, 0), 30)
        let full = min(initialBackoff * (1 << exponent), maximumBackoff)
        return full - full * Double.random(in: 0..<0.25)
    }
}
