package import APNSCore
package import Foundation

/// A push the gateway accepted (answered 200): what it stores for an offline device and forwards to an online one.
///
/// The payload stays as the bytes the provider sent; it was checked to be a JSON object before it was accepted.
package struct AcceptedNotification: Sendable, Hashable {
    /// The `apns-id` the gateway answered with.
    package let apnsID: UUID
    /// The `apns-unique-id` (development only).
    package let uniqueID: UUID?
    /// The device token it was sent to.
    package let token: APNSDeviceToken
    /// The `apns-topic`.
    package let topic: String
    /// The push type (`alert` when the header was absent).
    package let pushType: APNSPushType
    /// The priority (10 when the header was absent).
    package let priority: APNSPriority
    /// The `apns-expiration`.
    package let expiration: APNSExpiration
    /// The `apns-collapse-id`.
    package let collapseID: APNSCollapseID?
    /// The JSON payload as sent.
    package let payload: [UInt8]
    /// When the gateway accepted it.
    package let receivedAt: Date
    /// The W3C `traceparent` of the gateway's span for it, when the provider's request carried one and the gateway
    /// traces: the device's spans continue it.
    package var traceParent: String?

    package init(
        apnsID: UUID,
        uniqueID: UUID?,
        token: APNSDeviceToken,
        topic: String,
        pushType: APNSPushType,
        priority: APNSPriority,
        expiration: APNSExpiration,
        collapseID: APNSCollapseID?,
        payload: [UInt8],
        receivedAt: Date
    ) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.receivedAt = receivedAt
    }

    /// The last moment it may still be delivered: the expiration, at most 30 days.
    package var deadline: Date { expiration.deadline(acceptedAt: receivedAt) }

    /// Whether it may be stored for later at all (`apns-expiration: 0` is delivered now or never).
    package var isStorable: Bool { expiration != .immediately }
}
