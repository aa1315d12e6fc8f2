public import Foundation

/// One delivery (one device token of one notification) as `GET /v1/deliveries/{apns-id}` shows it: each step the
/// provider knows of, with its time, and what the device reported.
public struct DeliveryTrace: Codable, Sendable, Hashable {
    /// The `apns-id` every attempt of this delivery carried.
    public var apnsID: String
    public var notificationID: String
    public var appID: String
    public var token: String
    /// Where it is: queued, leased (in flight), accepted or rejected.
    public var state: DeliveryState
    /// How many times a worker leased it.
    public var attempts: Int
    /// When the notification was accepted by the API (the delivery was queued then).
    public var queuedAt: Date
    /// When it became due (the notification's `sendAt`, or a retry's time).
    public var notBefore: Date
    /// The notification's `apns-expiration` (UNIX seconds; 0: now or never), when it had one.
    public var expiration: Int? = nil
    /// While leased: when the lease runs out.
    public var leaseUntil: Date?
    /// APNs' answer: its HTTP status, reason and `apns-unique-id` (development only), and when it came.
    public var status: Int?
    public var reason: String?
    public var apnsUniqueID: String?
    public var answeredAt: Date?
    /// The first time the device reported each step.
    public var deliveredAt: Date?
    public var displayedAt: Date?
    public var openedAt: Date?
    public var dismissedAt: Date?
    /// The action chosen and the text replied, if any.
    public var action: String?
    public var reply: String?
    /// Every report the device sent, in order.
    public var reports: [Report]
    /// What the device said became of it beyond delivered and displayed (``DeliveryOutcome`` raw values), and its
    /// words for it.
    public var outcomes: [String] = []
    public var outcomeDetail: String?
    /// When the provider stopped using the delivery's token, and why (`replaced`: the app registered a new one;
    /// `Unregistered`, `BadDeviceToken`: APNs' answer).
    public var tokenRetiredAt: Date?
    public var tokenRetiredBecause: String?
    /// What became of it, in one sentence with the next step (set by the API when it answers).
    public var verdict: DeliveryVerdict?

    /// One report from the device.
    public struct Report: Codable, Sendable, Hashable {
        /// `delivered`, `displayed`, `opened`, `dismissed` or `action`.
        public var event: String
        public var action: String?
        public var reply: String?
        public var at: Date
    }
}
