import Foundation

/// The `apns-id` of a delivery: the notification's UUID with its last group replaced by the delivery's number, so a
/// retried or resent delivery always carries the same `apns-id` (devices drop a repeat) and a device's report leads
/// straight back to its delivery.
struct DeliveryMessageID: Hashable, Sendable {
    /// The first 23 characters of the notification's UUID (`XXXXXXXX-XXXX-XXXX-XXXX`).
    var notificationPrefix: String
    var deliveryID: Int64

    init(notificationID: String, deliveryID: Int64) {
        notificationPrefix = String(notificationID.prefix(23)).uppercased()
        self.deliveryID = deliveryID
    }

    /// Reads an `apns-id` made by ``string``; `nil` for any other.
    init?(_ apnsID: String) {
        let text = apnsID.uppercased()
        guard text.count == 36, let uuid = UUID(uuidString: text),
            let id = Int64(text.suffix(12), radix: 16)
        else { return nil }
        notificationPrefix = String(uuid.uuidString.prefix(23))
        deliveryID = id
    }

    /// The `apns-id` header value.
    var string: String {
        let hex = String(deliveryID, radix: 16, uppercase: true)
        return notificationPrefix + "-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }
}
