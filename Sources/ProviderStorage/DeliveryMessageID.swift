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
            bytes.append(HexDigit.uppercase(value))
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

        /// The `apns-id` of delivery `deliveryID`. The number's decimal digits go to the HMAC from the stack, and
        /// the text is written in place: a broadcast makes one per delivery.
        package func messageID(for deliveryID: Int64) -> DeliveryMessageID {
            var hmac = prefix
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
                var value = deliveryID.magnitude
                var start = digits.count
                repeat {
                    start -= 1
                    digits[start] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                } while value > 0
                if deliveryID < 0 {
                    start -= 1
                    digits[start] = UInt8(ascii: "-")
                }
                hmac.update(data: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(digits)[start...]))
            }
            let mac = hmac.finalize()
            let number = UInt64(bitPattern: deliveryID) & 0xFFFF_FFFF_FFFF
            let string = mac.withUnsafeBytes { raw in
                String(unsafeUninitializedCapacity: 36) { text in
                    var index = 0
                    for (position, byte) in raw.prefix(10).enumerated() {
                        if position == 4 || position == 6 || position == 8 {
                            text[index] = UInt8(ascii: "-")
                            index += 1
                        }
                        text[index] = HexDigit.uppercase(byte >> 4)
                        text[index + 1] = HexDigit.uppercase(byte & 0x0F)
                        index += 2
                    }
                    text[index] = UInt8(ascii: "-")
                    index += 1
                    for shift in stride(from: 44, through: 0, by: -4) {
                        text[index] = HexDigit.uppercase(UInt8((number >> UInt64(shift)) & 0x0F))
                        index += 1
                    }
                    return index
                }
            }
            return DeliveryMessageID(deliveryID: deliveryID, string: string)
        }
    }

    private static let dashPositions: Set<Int> = [8, 13, 18, 23]
}
