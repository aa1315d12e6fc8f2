import APNSCore
import Foundation
import Testing

@Suite("UUID text, checked byte by byte")
struct UUIDTextTests {
    @Test(
        "an apns-id is 36 characters: hexadecimal digits in either case, dashes at 8, 13, 18 and 23",
        arguments: [
            "5C0B6D9E-1B7E-4D6A-9F52-0A3C1E2D4B6F", "5c0b6d9e-1b7e-4d6a-9f52-0a3c1e2d4b6f",
            "00000000-0000-0000-0000-000000000000", "FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF",
        ])
    func accepted(text: String) {
        #expect(APNSMessageID(headerValue: text) != nil)
        #expect(UUID(uuidString: text) != nil)
        #expect(UUIDText.parse(text) == UUID(uuidString: text))
        #expect(APNSMessageID(headerValue: text)?.uuid == UUID(uuidString: text))
    }

    @Test(
        "anything else is not, including the leading space Foundation's sscanf-based parser lets through",
        arguments: [
            "5C0B6D9E1B7E-4D6A-9F52-0A3C1E2D4B6F-", "5C0B6D9E-1B7E-4D6A-9F52-0A3C1E2D4B6",
            "5C0B6D9E-1B7E-4D6A-9F52-0A3C1E2D4B6FF", "5C0B6D9G-1B7E-4D6A-9F52-0A3C1E2D4B6F",
            " 5C0B6D9E-1B7E-4D6A-9F52-0A3C1E2D4B6", "", "5C0B6D9E-1B7E-4D6A-9F52-0A3C1E2D4B6é",
            "{5C0B6D9E-1B7E-4D6A-9F52-0A3C1E2D4B6F}", "5C0B6D9E 1B7E 4D6A 9F52 0A3C1E2D4B6F",
        ])
    func refused(text: String) {
        #expect(APNSMessageID(headerValue: text) == nil)
        #expect(UUIDText.parse(text) == nil)
        #expect(UUIDText.parseLowercase(text) == nil)
    }

    @Test(
        "the lower-case form alone is what a database reads a uuid back as: any upper-case digit is not it",
        arguments: [
            ("5c0b6d9e-1b7e-4d6a-9f52-0a3c1e2d4b6f", true), ("00000000-0000-0000-0000-000000000000", true),
            ("5C0B6D9E-1B7E-4D6A-9F52-0A3C1E2D4B6F", false), ("5c0b6d9e-1b7e-4d6a-9f52-0a3c1e2d4b6F", false),
            ("Ac0b6d9e-1b7e-4d6a-9f52-0a3c1e2d4b6f", false), ("5c0b6d9e-1b7e-4d6a-9f52-0a3c1e2d4b6", false),
        ])
    func lowercase(text: String, isLowercaseUUID: Bool) {
        let parsed = UUIDText.parseLowercase(text)
        #expect((parsed != nil) == isLowercaseUUID)
        if let parsed { #expect(parsed.lowercasedString == text) }
    }
}
