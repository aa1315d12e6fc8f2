import Foundation
import Testing

@testable import APNSCore

@Suite("base64url (RFC 4648 §5), as JWTs and device secrets use it")
struct Base64URLTests {
    @Test("'+' and '/' become '-' and '_', the padding goes, and the text reads back to the same bytes")
    func roundTrip() throws {
        #expect(Data().base64URLEncodedString == "")
        #expect(Data([0xfb, 0xff]).base64URLEncodedString == "-_8")
        #expect(Data([0xfb, 0xef, 0xbe]).base64URLEncodedString == "----")
        #expect(Data([0xff, 0xff, 0xff]).base64URLEncodedString == "____")
        #expect(Data("a".utf8).base64URLEncodedString == "YQ")
        for count in 0..<70 {
            let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) })
            let text = bytes.base64URLEncodedString
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Data(base64URLEncoded: text) == bytes)
        }
    }
}
