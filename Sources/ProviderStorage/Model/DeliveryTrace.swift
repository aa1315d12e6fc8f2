package import Foundation

/// One delivery (one device token of one notification) as `GET /v1/deliveries/{apns-id}` shows it: each step the
/// provider knows of, with its time, and what the device reported.
package struct DeliveryTrace: Codable, Sendable, Hashable {
    /// The `apns-id` every attempt of this delivery carried.
    package var apnsID: String
    package var notificationID: String
    package var appID: String
    /// The device token; empty for a broadcast, which has ``channelID`` instead.
    package var token: String
    /// For a broadcast to a Live Activity channel: the channel (APNs fans it out to its subscribers).
    package var channelID: String? = nil
    /// Where it is: queued, leased (in flight), accepted or rejected.
    package var state: DeliveryState
    /// How many times a worker leased it.
    package var attempts: Int
    /// When the notification was accepted by the API (the delivery was queued then).
    package var queuedAt: Date
    /// When it became due (the notification's `sendAt`, or a retry's time).
    package var notBefore: Date
    /// The notification's `apns-expiration` (UNIX seconds; 0: now or never), when it had one.
    package var expiration: Int? = nil
    /// While leased: when the lease runs out.
    package var leaseUntil: Date?
    /// APNs' answer: its HTTP status, reason and `apns-unique-id` (development only), and when it came.
    package var status: Int?
    package var reason: String?
    package var apnsUniqueID: String?
    package var answeredAt: Date?
    /// The first time the device reported each step.
    package var deliveredAt: Date?
    package var displayedAt: Date?
    package var openedAt: Date?
    package var dismissedAt: Date?
    /// The action chosen and the text replied, if any.
    package var action: String?
    package var reply: String?
    /// Every report the device sent, in order.
    package var reports: [Report]
    /// What the device said became of it beyond delivered and displayed (``DeliveryOutcome`` raw values), and its
    /// words for it.
    package var outcomes: [String] = []
    package var outcomeDetail: String?
    /// When the provider stopped using the delivery's token, and why (`replaced`: the app registered a new one;
    /// `Unregistered`, `BadDeviceToken`: APNs' answer).
    package var tokenRetiredAt: Date?
    package var tokenRetiredBecause: String?
    /// What became of it, in one sentence with the next step (set by the API when it answers).
    package var verdict: DeliveryVerdict?

    /// One report from the device.
    package struct Report: Codable, Sendable, Hashable {
        /// `delivered`, `displayed`, `opened`, `dismissed` or `action`.
        package var event: String
        package var action: String?
        package var reply: String?
        package var at: Date
    }
}
