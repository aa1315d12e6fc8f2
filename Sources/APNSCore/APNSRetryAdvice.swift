/// Whether a client may send a rejected notification again, and how (Apple's guidance in "Handling notification
/// responses from APNs").
public struct APNSRetryAdvice: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Final: sending the same notification again can never succeed (`BadDeviceToken`, `Unregistered`,
    /// `PayloadTooLarge`, ...). Never retry.
    public static let never = APNSRetryAdvice(rawValue: "never")
    /// The request itself is wrong (a header, the topic, the credentials); only a changed request can succeed, so an
    /// automatic retry must not happen.
    public static let afterFixingRequest = APNSRetryAdvice(rawValue: "after-fixing-request")
    /// Transient (`TooManyRequests`, 500, 503): send the same notification again after an exponential backoff.
    public static let afterBackoff = APNSRetryAdvice(rawValue: "after-backoff")
    /// The provider token is stale: sign a new one and send again at once.
    public static let withNewProviderToken = APNSRetryAdvice(rawValue: "with-new-provider-token")
    /// The connection is done for (`Shutdown`, `IdleTimeout`, `UnrelatedKeyIdInToken`): send again on a new one.
    public static let onNewConnection = APNSRetryAdvice(rawValue: "on-new-connection")

    /// Whether a client may send the same notification again without anyone changing it.
    public var allowsAutomaticRetry: Bool {
        self == .afterBackoff || self == .withNewProviderToken || self == .onNewConnection
    }

    public var description: String { rawValue }
}
