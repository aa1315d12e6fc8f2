import APNSCore
package import Crypto
import Foundation

/// The `apns-id` of a delivery: 80 bits of an HMAC (keyed by the provider's master key) of the notification's id and
/// the delivery's number, then the delivery's number in the last 48 bits. A retried or resent delivery always carries
/// the same `apns-id` (devices drop a repeat); a device's report leads back to its delivery by the number, and the
/// HMAC is checked against the delivery found, so an `apns-id` cannot be guessed from another one (a device that got
/// one push of a broadcast learns nothing about the others').
package struct DeliveryMessageID: Hashable, Sendable {
    /// The delivery's number.
    package let deliveryID: Int64
    /// The `apns-id` header value, upper case.
    package let string: String

    /// The `apns-id` made for delivery `deliveryID` of notification `notificationID`.
    package init(notificationID: String, deliveryID: Int64, key: SymmetricKey) {
        self = Maker(notificationID: notificationID, key: key).messageID(for: deliveryID)
    }

    private init(deliveryID: Int64, string: String) {
        self.deliveryID = deliveryID
        self.string = string
    }

    /// Reads the delivery's number from an `apns-id`; `nil` for text that is not a UUID. Whether it is the apns-id
    /// this provider made for that delivery is checked against the delivery (``string``).
    package init?(_ apnsID: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        var number: UInt64 = 0
        for (index, byte) in apnsID.utf8.enumerated() {
            guard index < 36 else { return nil }
            if Self.dashPositions.contains(index) {
                guard byte == UInt8(ascii: "-") else { return nil }
                bytes.append(byte)
                continue
            }
            guard let value = HexDigit.value(byte) else { return nil }
            bytes.append(HexDigit.upperCase[Int(value)])
            if index >= 24 { number = number << 4 | UInt64(value) }
        }
        guard bytes.count == 36 else { return nil }
        deliveryID = Int64(bitPattern: number)
        string = String(decoding: bytes, as: UTF8.self)
    }

    /// Makes the `apns-id`s of one notification's deliveries: the HMAC's key and the notification's id are taken in
    /// once, so each delivery costs one HMAC finish and no formatting (a broadcast makes millions).
    package struct Maker: Sendable {
        private let prefix: HMAC<SHA256>

        package init(notificationID: String, key: SymmetricKey) {
            var hmac = HMAC<SHA256>(key: key)
            hmac.update(data: Array("\(notificationID)/".utf8))
            prefix = hmac
        }

        /// The `apns-id` of delivery `deliveryID`.
        package func messageID(for deliveryID: Int64) -> DeliveryMessageID {
            var hmac = prefix
            hmac.update(data: Array(String(deliveryID).utf8))
            let mac = hmac.finalize()
            var bytes = [UInt8]()
            bytes.reserveCapacity(36)
            mac.withUnsafeBytes { raw in
                for (index, byte) in raw.prefix(10).enumerated() {
                    if index == 4 || index == 6 || index == 8 { bytes.append(UInt8(ascii: "-")) }
                    bytes.append(HexDigit.upperCase[Int(byte >> 4)])
                    bytes.append(HexDigit.upperCase[Int(byte & 0x0F)])
                }
            }
            bytes.append(UInt8(ascii: "-"))
            let number = UInt64(bitPattern: deliveryID) & 0xFFFF_FFFF_FFFF
            for shift in stride(from: 44, through: 0, by: -4) {
                bytes.append(HexDigit.upperCase[Int((number >> UInt64(shift)) & 0x0F)])
            }
            return DeliveryMessageID(deliveryID: deliveryID, string: String(decoding: bytes, as: UTF8.self))
        }
    }

    private static let dashPositions: Set<Int> = [8, 13, 18, 23]
}
