import Crypto
import Foundation
import Testing

@testable import ProviderStorage

@Suite("A delivery's apns-id")
struct DeliveryMessageIDTests {
    let secret = SymmetricKey(data: Array(repeating: UInt8(7), count: 32))
    var key: MessageKey { MessageKey(secret) }

    /// The form the apns-id has always had (and devices and stored reports hold): the HMAC's first 10 bytes in
    /// hexadecimal, 8-4-4-4, then the delivery's number in 12 hexadecimal digits; written here with Foundation's
    /// formatting, as the first version made it.
    func reference(_ notificationID: String, _ deliveryID: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(notificationID)/\(deliveryID)".utf8), using: secret)
        let hex = Array(mac.prefix(10)).map { String(format: "%02X", $0) }.joined()
        let number = String(UInt64(truncatingIfNeeded: deliveryID) & 0xFFFF_FFFF_FFFF, radix: 16, uppercase: true)
        let tail = String(repeating: "0", count: max(0, 12 - number.count)) + number
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16)]
        return parts.joined(separator: "-") + "-" + tail
    }

    @Test(
        "the form made before the mask is still made byte by byte as then (to read old apns-ids), for every number",
        arguments: [0, 1, 15, 16, 255, 1_000_000, 0xFFFF_FFFF_FFFF, 0x1_0000_0000_0000, Int64.max, -1, Int64.min])
    func legacyAsBefore(deliveryID: Int64) {
        let maker = DeliveryMessageID.Maker(notificationID: "5C0B6D9E-notification", key: key)
        #expect(maker.legacyString(for: deliveryID) == reference("5C0B6D9E-notification", deliveryID))
        let made = DeliveryMessageID(notificationID: "5C0B6D9E-notification", deliveryID: deliveryID, key: key)
        #expect(made.deliveryID == deliveryID && !made.isLegacy)
        #expect(maker.messageID(for: deliveryID) == made)
    }

    @Test("an apns-id is a UUID of version 8 whose last group hides the delivery's number (which counts every app's)")
    func numberHidden() throws {
        let maker = DeliveryMessageID.Maker(notificationID: "n", key: key)
        let ids = (1...200).map { maker.messageID(for: Int64($0)).string }
        for id in ids {
            let uuid = try #require(UUID(uuidString: id))
            #expect(uuid.uuidString == id)
            #expect(Array(id)[14] == "8", "version 8: \(id)")
            #expect("89AB".contains(Array(id)[19]), "variant 10: \(id)")
        }
        let lasts = ids.map { UInt64($0.suffix(12), radix: 16)! }
        #expect(zip(lasts, lasts.dropFirst()).allSatisfy { $1 != $0 &+ 1 }, "no two in a row count up")
        #expect(Set(lasts.map { $0 >> 44 }).count > 8, "the high digits vary as much as the low ones")
    }

    @Test("read back with the key, an apns-id gives its delivery's number, in either case; an old one too")
    func readBack() throws {
        let made = DeliveryMessageID(notificationID: "n", deliveryID: 123_456, key: key)
        #expect(try #require(DeliveryMessageID(made.string, key: key)) == made)
        #expect(try #require(DeliveryMessageID(made.string.lowercased(), key: key)) == made)
        #expect(made.isMade(forNotification: "n", key: key))
        #expect(!made.isMade(forNotification: "m", key: key), "another notification's")
        let other = MessageKey(SymmetricKey(data: Array(repeating: UInt8(8), count: 32)))
        let misread = try #require(DeliveryMessageID(made.string, key: other))
        #expect(!misread.isMade(forNotification: "n", key: other), "another provider's key")
        // Made before the mask (the number in the clear): still read, and still its delivery's.
        var old = reference("n", 123_456)
        if !(Array(old)[14] == "8" && "89AB".contains(Array(old)[19])) {
            let legacy = try #require(DeliveryMessageID(old, key: key))
            #expect(legacy.isLegacy && legacy.deliveryID == 123_456)
            #expect(legacy.isMade(forNotification: "n", key: key))
        }
        old = "00000000-0000-0000-0000-FFFFFFFFFFFF"
        #expect(DeliveryMessageID(old, key: key)?.deliveryID == 0xFFFF_FFFF_FFFF)
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
        #expect(DeliveryMessageID(text, key: key) == nil)
    }
}
