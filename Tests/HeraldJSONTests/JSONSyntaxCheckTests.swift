import Foundation
import Testing

@testable import HeraldJSON

@Suite("Checking JSON without building it answers as parsing it does")
struct JSONSyntaxCheckTests {
    /// Texts at the edges of the grammar: strings (escapes, surrogates, UTF-8 split by escapes, control characters),
    /// numbers, literals, nesting, whitespace, a byte order mark, what follows the value.
    static let documents: [[UInt8]] =
        [
            #"{"aps":{"alert":"Hello"}}"#, #"{}"#, #"[]"#, #""""#, #""x""#, "0", "-0", "1e5", "-1.5E-3", "1.", ".5",
            "01", "-", "1e", "1e+", "2.5e+10", "true", "false", "null", "tru", "nul", "[1,]", "[,1]", #"{"a":1,}"#,
            #"{"a" 1}"#, #"{a:1}"#, #"{"a":1 "b":2}"#, "[1 2]", " \t\r\n{} \n", "{} x", "{}{}", "", "   ", "//",
            "'a'", #""\u0041\u00e9\ud83d\ude00""#, #""\ud83d""#, #""\ude00""#, #""\ud83d\u0041""#, #""\u12""#,
            #""\x""#, #""\"\\\/\b\f\n\r\t""#, #""abc"#, #""\"#, #"{"a":"é","b":["ü",{"c":"日本"}]}"#,
            String(repeating: "[", count: 511) + String(repeating: "]", count: 511),
            String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
            #"{"a":[1,2.5,true,null,"x",{"b":{}}],"a":0}"#,
        ].map { Array($0.utf8) } + [
            [0xEF, 0xBB, 0xBF, 0x7B, 0x7D],  // a byte order mark, then {}
            [0x22, 0xC3, 0xA9, 0x22],  // "é"
            [0x22, 0xC3, 0x22],  // a lead byte alone
            [0x22, 0xC3, 0x5C, 0x6E, 0xA9, 0x22],  // é split by an escape: invalid either way
            [0x22, 0xA9, 0x22],  // a continuation byte alone
            [0x22, 0xC0, 0xAF, 0x22],  // an overlong '/'
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // a surrogate in UTF-8
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // past U+10FFFF
            [0x22, 0xF0, 0x9F, 0x98, 0x80, 0x5C, 0x74, 0xF0, 0x9F, 0x98, 0x80, 0x22],  // 😀\t😀
            [0x22, 0x01, 0x22],  // a control character
            [0x22, 0xFF, 0x01, 0x22],  // invalid UTF-8, then a control character
            [0x5B, 0x22, 0xE2, 0x82, 0xAC, 0x22, 0x2C, 0x00, 0x5D],  // ["€", NUL]
        ]

    @Test("every document is accepted or refused alike, with the same top-level type or the same error")
    func agreesWithTheParser() {
        for bytes in Self.documents {
            Self.expectSameAnswer(bytes)
        }
    }

    @Test("so is every one- and two-byte change of a payload with escapes, non-ASCII text, numbers and nesting")
    func agreesOnMutations() {
        let payload = Array(#"{"aps":{"alert":{"title":"é\u00e9\n","loc-args":[1,-2.5e3,true,null]}},"k":"日"}"#.utf8)
        let replacements: [UInt8] = [
            0x00, 0x22, 0x5C, 0x2C, 0x3A, 0x5B, 0x5D, 0x7B, 0x7D, 0x75, 0x80, 0xC3, 0xFF, 0x30,
        ]
        var generator = SystemRandomNumberGenerator()
        for position in payload.indices {
            for replacement in replacements {
                var changed = payload
                changed[position] = replacement
                Self.expectSameAnswer(changed)
                var twice = changed
                twice[Int.random(in: twice.indices, using: &generator)] = replacements.randomElement()!
                Self.expectSameAnswer(twice)
            }
            Self.expectSameAnswer(Array(payload[..<position]))
        }
    }

    /// The check's answer is the parser's; and the parser that builds nothing, which the check runs first (parsing
    /// again only for an error's full wording), accepts and refuses alike on its own.
    private static func expectSameAnswer(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let parsed = Result { () throws(JSONSyntaxError) in try JSONValue(parsing: Data(bytes)).typeName }
        let checked = Result { () throws(JSONSyntaxError) in try JSONValue.checkSyntax(of: bytes) }
        #expect(parsed == checked, "\(bytes)", sourceLocation: sourceLocation)
        var checker = JSONParser(bytes: bytes, building: false)
        let unbuilt = try? checker.parseDocument().typeName
        #expect(unbuilt == (try? parsed.get()), "\(bytes)", sourceLocation: sourceLocation)
    }
}
