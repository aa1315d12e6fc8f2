import Crypto
import Foundation
import Testing

@testable import ProviderStorage

@Suite("A delivery's apns-id")
struct DeliveryMessageIDTests {
    let key = SymmetricKey(data: Array(repeating: UInt8(7), count: 32))

    /// The form the apns-id has always had (and devices and stored reports hold): the HMAC's first 10 bytes in
    /// hexadecimal, 8-4-4-4, then the delivery's number in 12 hexadecimal digits; written here with Foundation's
    /// formatting, as the first version made it.
    func reference(_ notificationID: String, _ deliveryID: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(notificationID)/\(deliveryID)".utf8), using: key)
        let hex = Array(mac.prefix(10)).map { String(format: "%02X", $0) }.joined()
        let number = String(UInt64(truncatingIfNeeded: deliveryID) & 0xFFFF_FFFF_FFFF, radix: 16, uppercase: true)
        let tail = String(repeating: "0", count: max(0, 12 - number.count)) + number
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16)]
        return parts.joined(separator: "-") + "-" + tail
    }

    @Test(
        "made byte by byte, it is the same apns-id as before, for every number a delivery can have",
        arguments: [0, 1, 15, 16, 255, 1_000_000, 0xFFFF_FFFF_FFFF, 0x1_0000_0000_0000, Int64.max, -1, Int64.min])
    func sameAsBefore(deliveryID: Int64) {
        let made = DeliveryMessageID(notificationID: "5C0B6D9E-notification", deliveryID: deliveryID, key: key)
        #expect(made.string == reference("5C0B6D9E-notification", deliveryID))
        #expect(made.deliveryID == deliveryID)
        let maker = DeliveryMessageID.Maker(notificationID: "5C0B6D9E-notification", key: key)
        #expect(maker.messageID(for: deliveryID) == made)
    }

    @Test("read back, an apns-id gives its delivery's number, in either case; the HMAC part is kept as it came")
    func readBack() throws {
        let made = DeliveryMessageID(notificationID: "n", deliveryID: 123_456, key: key)
        #expect(try #require(DeliveryMessageID(made.string)) == made)
        #expect(try #require(DeliveryMessageID(made.string.lowercased())) == made)
        #expect(DeliveryMessageID("00000000-0000-0000-0000-FFFFFFFFFFFF")?.deliveryID == 0xFFFF_FFFF_FFFF)
    }

    @Test(
        "text that is not a UUID in 8-4-4-4-12 form is no apns-id",
        arguments: [
            "", "00000000-0000-0000-0000-00000000000", "00000000-0000-0000-0000-0000000000000",
            "00000000-0000-0000-0000-00000000000G", "000000000-000-0000-0000-000000000000",
            "00000000_0000_0000_0000_000000000000", "{00000000-0000-0000-0000-000000000000}",
            "00000000-0000-0000-0000-00000000000é",
        ])
    func notAnID(text: String) {
        #expect(DeliveryMessageID(text) == nil)
    }
}
