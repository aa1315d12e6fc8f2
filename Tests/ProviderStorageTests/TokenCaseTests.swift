import Testing

@testable import ProviderStorage

/// A device token is checked and stored in lower case; the checks that an import makes millions of times keep a
/// token that is lower case already as it is.
@Suite("Device tokens: hex checked, stored in lower case")
struct TokenCaseTests {
    @Test("a token in any case comes back in lower case, the same token when it is lower case already")
    func lowerCase() throws {
        let lower = String(repeating: "0a1b2c3d4e5f6789", count: 4)
        #expect(try NotificationTarget.checkToken(lower, field: "token") == lower)
        #expect(try NotificationTarget.checkToken(lower.uppercased(), field: "token") == lower)
        #expect(try NotificationTarget.checkToken("aBcD", field: "token") == "abcd")
        #expect(lower.lowercasedToken == lower)
        #expect("ABCdef".lowercasedToken == "abcdef")
        // Not a token, but lowered as `lowercased()` lowers it: letters beyond ASCII included.
        #expect("ÉA".lowercasedToken == "éa")
    }

    @Test(
        "anything but 2 to 200 hex digits, an even number of them, is refused naming the field",
        arguments: ["", "a", "abc", "0g", "ab cd", "ａｂ", String(repeating: "ab", count: 101), "ab\u{0}c"])
    func refused(token: String) {
        #expect {
            try NotificationTarget.checkToken(token, field: "devices[3].token")
        } throws: { error in
            let error = error as? ProviderError
            return error?.field == "devices[3].token"
                && error?.message.hasPrefix("a device token is an even number of hex digits (at most 200)") == true
        }
    }

    @Test("200 hex digits is the longest token")
    func longest() throws {
        let token = String(repeating: "Ab", count: 100)
        #expect(try NotificationTarget.checkToken(token, field: "token") == token.lowercased())
    }
}
