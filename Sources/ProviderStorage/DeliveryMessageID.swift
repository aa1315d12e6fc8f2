import APNSCore
import Crypto
import Foundation

/// The `apns-id` of a delivery, a UUID of version 8 (RFC 9562's custom form): 74 bits of an HMAC (keyed by the
/// provider's master key) of the notification's id and the delivery's number, and in the last 48 bits the delivery's
/// number masked by an HMAC of those 74 bits (under a key of its own). A retried or resent delivery always carries the
/// same `apns-id` (devices drop a repeat); a device's report leads back to its delivery by the number, unmasked with
/// the key, and the HMAC is checked against the delivery found, so an `apns-id` cannot be guessed from another one,
/// and the numbers, which count every app's deliveries, are not shown: a device that got two pushes cannot tell how
/// many were sent between them.
///
/// `apns-id`s made before the mask (the number in the clear, any version) are still read: a device may report on a
/// push sent before an upgrade. One in 64 of those looks like the new form and is read as it (its report is `404`).
package struct DeliveryMessageID: Hashable, Sendable {
    /// The delivery's number.
    package let deliveryID: Int64
    /// The `apns-id` header value, upper case.
    package let string: String
    /// Whether it is the form made before the mask (the number in the clear).
    package let isLegacy: Bool

    /// The `apns-id` made for delivery `deliveryID` of notification `notificationID`.
    package init(notificationID: String, deliveryID: Int64, key: MessageKey) {
        self = Maker(notificationID: notificationID, key: key).messageID(for: deliveryID)
    }

    private init(deliveryID: Int64, string: String, isLegacy: Bool) {
        self.deliveryID = deliveryID
        self.string = string
        self.isLegacy = isLegacy
    }

    /// Reads the delivery's number from an `apns-id` (unmasked with `key`); `nil` for text that is not a UUID.
    /// Whether it is the apns-id this provider made for that delivery is checked against the delivery
    /// (``isMade(forNotification:key:)``).
    package init?(_ apnsID: String, key: MessageKey) {
        var text: [UInt8] = []
        text.reserveCapacity(36)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for (index, byte) in apnsID.utf8.enumerated() {
            guard index < 36 else { return nil }
            if Self.dashPositions.contains(index) {
                guard byte == UInt8(ascii: "-") else { return nil }
                text.append(byte)
                continue
            }
            guard let value = HexDigit.value(byte) else { return nil }
            text.append(HexDigit.uppercase(value))
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        guard text.count == 36, bytes.count == 16 else { return nil }
        let shown = bytes[10...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        isLegacy = !Self.isMasked(bytes)
        let number = isLegacy ? shown : shown ^ Self.mask(of: bytes.prefix(10), key: key)
        deliveryID = Int64(bitPattern: number)
        string = String(decoding: text, as: UTF8.self)
    }

    /// Whether this is the `apns-id` this provider made for its delivery of notification `notificationID` (in the
    /// form it was read in).
    package func isMade(forNotification notificationID: String, key: MessageKey) -> Bool {
        let maker = Maker(notificationID: notificationID, key: key)
        let made = isLegacy ? maker.legacyString(for: deliveryID) : maker.messageID(for: deliveryID).string
        return made == string
    }

    /// Makes the `apns-id`s of one notification's deliveries: the HMACs' keys and the notification's id are taken in
    /// once, so each delivery costs two HMAC finishes and no formatting (a broadcast makes millions).
    package struct Maker: Sendable {
        private let prefix: HMAC<SHA256>
        private let masking: HMAC<SHA256>

        package init(notificationID: String, key: MessageKey) {
            var hmac = key.keyed
            hmac.update(data: Array("\(notificationID)/".utf8))
            prefix = hmac
            masking = key.masking
        }

        /// The `apns-id` of delivery `deliveryID`.
        package func messageID(for deliveryID: Int64) -> DeliveryMessageID {
            var bytes = mac(of: deliveryID)
            bytes[6] = bytes[6] & 0x0F | 0x80  // version 8
            bytes[8] = bytes[8] & 0x3F | 0x80  // variant 10
            var hmac = masking
            bytes.span.withUnsafeBytes { hmac.update(data: $0) }
            let mask = hmac.finalize().withUnsafeBytes { DeliveryMessageID.number(of: $0.prefix(6)) }
            let number = (UInt64(bitPattern: deliveryID) & DeliveryMessageID.numberMask) ^ mask
            return DeliveryMessageID(
                deliveryID: deliveryID, string: DeliveryMessageID.text(bytes, number: number), isLegacy: false)
        }

        /// The `apns-id` this provider made for delivery `deliveryID` before the mask: the number in the clear.
        func legacyString(for deliveryID: Int64) -> String {
            DeliveryMessageID.text(
                mac(of: deliveryID), number: UInt64(bitPattern: deliveryID) & DeliveryMessageID.numberMask)
        }

        /// The first 10 bytes of the HMAC of the notification's id and `deliveryID` (its decimal digits, from the
        /// stack).
        private func mac(of deliveryID: Int64) -> InlineArray<10, UInt8> {
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
            return hmac.finalize().withUnsafeBytes { raw in InlineArray { raw[$0] } }
        }
    }

    /// The low 48 bits: the delivery's number in an `apns-id`.
    static let numberMask: UInt64 = 0xFFFF_FFFF_FFFF

    /// The 48-bit mask of an `apns-id` whose first 10 bytes are `first`.
    static func mask(of first: ArraySlice<UInt8>, key: MessageKey) -> UInt64 {
        var hmac = key.masking
        first.withUnsafeBytes { hmac.update(data: $0) }
        return hmac.finalize().withUnsafeBytes { number(of: $0.prefix(6)) }
    }

    /// Whether the first 10 of `bytes` carry version 8 and variant 10: the masked form.
    static func isMasked(_ bytes: [UInt8]) -> Bool {
        bytes[6] >> 4 == 8 && bytes[8] >> 6 == 2
    }

    /// Big-endian bytes as a number.
    static func number(of bytes: some Collection<UInt8>) -> UInt64 {
        bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The text of an `apns-id`: 10 bytes in the first four groups, the 48-bit `number` in the last, upper case.
    static func text(_ bytes: InlineArray<10, UInt8>, number: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { text in
            var index = 0
            for position in 0..<10 {
                if position == 4 || position == 6 || position == 8 {
                    text[index] = UInt8(ascii: "-")
                    index += 1
                }
                text[index] = HexDigit.uppercase(bytes[position] >> 4)
                text[index + 1] = HexDigit.uppercase(bytes[position] & 0x0F)
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

    private static let dashPositions: Set<Int> = [8, 13, 18, 23]
}
