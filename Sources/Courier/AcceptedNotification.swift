public import APNSCore
public import Foundation

/// A push the gateway accepted (answered 200): what it stores for an offline device and forwards to an online one.
///
/// The payload stays as the bytes the provider sent; it was checked to be a JSON object before it was accepted.
public struct AcceptedNotification: Sendable, Hashable {
    /// The `apns-id` the gateway answered with.
    public let apnsID: UUID
    /// The `apns-unique-id` (development only).
    public let uniqueID: UUID?
    /// The device token it was sent to.
    public let token: APNSDeviceToken
    /// The `apns-topic`.
    public let topic: String
    /// The push type (`alert` when the header was absent).
    public let pushType: APNSPushType
    /// The priority (10 when the header was absent).
    public let priority: APNSPriority
    /// The `apns-expiration`.
    public let expiration: APNSExpiration
    /// The `apns-collapse-id`.
    public let collapseID: APNSCollapseID?
    /// The JSON payload as sent.
    public let payload: [UInt8]
    /// When the gateway accepted it.
    public let receivedAt: Date

    public init(
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

    /// The last moment it may still be delivered (reference E.2: the expiration, at most 30 days).
    public var deadline: Date { expiration.deadline(acceptedAt: receivedAt) }

    /// Whether it may be stored for later at all (`apns-expiration: 0` is delivered now or never).
    public var isStorable: Bool { expiration != .immediately }
}
