import Foundation
import Testing

@testable import APNSCore

@Suite("Device tokens")
struct APNSDeviceTokenTests {
    @Test("a 32-byte token parses and writes back as lowercase hex")
    func standardToken() throws {
        let hex = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
        let token = try APNSDeviceToken(hex: hex)
        #expect(token.bytes.count == 32)
        #expect(token.hex == hex)
        #expect(try APNSDeviceToken(hex: hex.uppercased()) == token)
        #expect(token.logPrefix == "00fc13ad")
    }

    @Test("no size is assumed: 1 to 100 bytes are accepted", arguments: [1, 8, 32, 64, 100])
    func sizes(count: Int) throws {
        let token = try APNSDeviceToken(hex: String(repeating: "ab", count: count))
        #expect(token.bytes.count == count)
    }

    @Test(
        "malformed tokens get BadDeviceToken, an empty one MissingDeviceToken",
        arguments: [
            ("", "MissingDeviceToken"), ("abc", "BadDeviceToken"), ("zz", "BadDeviceToken"),
            ("ab cd", "BadDeviceToken"), (String(repeating: "ab", count: 101), "BadDeviceToken"),
            ("0x00fc", "BadDeviceToken"),
        ]
    )
    func malformed(hex: String, reason: String) {
        #expect {
            try APNSDeviceToken(hex: hex)
        } throws: { ($0 as? APNSRequestRejection)?.reason.rawValue == reason }
    }

    @Test("tokens encode as hex strings in JSON")
    func codable() throws {
        let token = try APNSDeviceToken(bytes: Data([0xde, 0xad, 0xbe, 0xef]))
        let json = try JSONEncoder().encode([token])
        #expect(String(decoding: json, as: UTF8.self) == #"["deadbeef"]"#)
        #expect(try JSONDecoder().decode([APNSDeviceToken].self, from: json) == [token])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([APNSDeviceToken].self, from: Data(#"["xyz"]"#.utf8))
        }
    }
}
