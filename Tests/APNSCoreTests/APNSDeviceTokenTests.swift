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

    @Test("tokens held inline (up to 32 bytes) and on the heap (33 to 100) compare, hash and read back by their bytes")
    func storage() throws {
        // A trailing zero byte is part of the token: "ab" and "ab00" are two tokens, as are 32 and 33 bytes.
        let pairs = [
            ("ab", "ab00"), (String(repeating: "00", count: 31), String(repeating: "00", count: 32)),
            (String(repeating: "ff", count: 32), String(repeating: "ff", count: 33)),
        ]
        for (short, long) in pairs {
            let (a, b) = (try APNSDeviceToken(hex: short), try APNSDeviceToken(hex: long))
            #expect(a != b)
            #expect(Set([a, b]).count == 2)
            #expect(a.byteCount == short.count / 2 && b.byteCount == long.count / 2)
        }
        for text in [String(repeating: "ab", count: 31) + "zz", String(repeating: "ab", count: 40) + "g0"] {
            #expect {
                try APNSDeviceToken(hex: text)
            } throws: {
                ($0 as? APNSRequestRejection)?.message.contains("found '\(text.last == "0" ? "g" : "z")'") == true
            }
        }
        for count in [1, 7, 8, 9, 31, 32, 33, 64, 100] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let token = try APNSDeviceToken(bytes: Data(bytes))
            #expect(token.bytes == Data(bytes))
            #expect(token.withBytes { Array($0) } == bytes)
            #expect(token.hex == bytes.map { String(format: "%02x", $0) }.joined())
            let again = try APNSDeviceToken(hex: token.hex.uppercased())
            #expect(again == token && again.hashValue == token.hashValue)
        }
    }
}
