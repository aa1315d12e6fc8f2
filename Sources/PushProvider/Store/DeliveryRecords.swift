import Foundation

/// A delivery a worker leased: one device token of one notification.
struct LeasedDelivery: Sendable {
    var id: Int64
    var notificationID: String
    var appID: String
    var token: String
    /// How many times it has been leased, this time included.
    var attempts: Int
}

/// What became of a leased delivery; recorded in batches.
enum DeliveryResult: Sendable {
    /// APNs answered 200.
    case accepted(id: Int64, uniqueID: String?, at: Date)
    /// APNs refused it for good. `deactivate` names the token to mark inactive (410, `BadDeviceToken`).
    case rejected(id: Int64, status: Int?, reason: String, at: Date, deactivate: Deactivation?)
    /// It may succeed later: back to the queue at `notBefore`.
    case retry(id: Int64, reason: String, notBefore: Date)

    struct Deactivation: Sendable {
        var appID: String
        var token: String
        var at: Date
        var reason: String
    }
}

/// One event a device reported about a delivery.
struct FeedbackEvent: Sendable {
    /// `delivered`, `displayed`, `opened`, `dismissed` or `action`.
    var event: String
    var action: String?
    var reply: String?
    var at: Date
}

/// What the webhook needs about a delivery a user responded to.
struct DeliveryContext: Sendable {
    var deliveryID: Int64
    var notificationID: String
    var appID: String
    var token: String
    var userID: String?
    var webhookURL: String?
}
