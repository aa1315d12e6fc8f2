import Crypto
import Foundation

/// The `apns-id` of a delivery: 80 bits of an HMAC (keyed by the provider's master key) of the notification's id and
/// the delivery's number, then the delivery's number in the last 48 bits. A retried or resent delivery always carries
/// the same `apns-id` (devices drop a repeat); a device's report leads back to its delivery by the number, and the
/// HMAC is checked against the delivery found, so an `apns-id` cannot be guessed from another one (a device that got
/// one push of a broadcast learns nothing about the others').
struct DeliveryMessageID: Hashable, Sendable {
    /// The delivery's number.
    let deliveryID: Int64
    /// The `apns-id` header value, upper case.
    let string: String

    /// The `apns-id` made for delivery `deliveryID` of notification `notificationID`.
    init(notificationID: String, deliveryID: Int64, key: SymmetricKey) {
        self.deliveryID = deliveryID
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(notificationID)/\(deliveryID)".utf8), using: key)
        let hex = Array(mac.prefix(10)).map { String(format: "%02X", $0) }.joined()
        let number = String(UInt64(truncatingIfNeeded: deliveryID) & 0xFFFF_FFFF_FFFF, radix: 16, uppercase: true)
        let tail = String(repeating: "0", count: max(0, 12 - number.count)) + number
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16)]
        string = parts.joined(separator: "-") + "-" + tail
    }

    /// Reads the delivery's number from an `apns-id`; `nil` for text that is not a UUID. Whether it is the apns-id
    /// this provider made for that delivery is checked against the delivery (``string``).
    init?(_ apnsID: String) {
        let text = apnsID.uppercased()
        guard text.utf8.count == 36, UUID(uuidString: text) != nil, let id = Int64(text.suffix(12), radix: 16)
        else { return nil }
        deliveryID = id
        string = text
    }
}
