import Foundation
import Testing

@testable import HeraldJSON

@Suite("JSON values keep what the author wrote")
struct JSONValueTests {
    @Test("JSONDecoder reads any JSON value into a JSONValue, inside a Decodable struct")
    func decodable() throws {
        struct Body: Decodable {
            var value: JSONValue
        }
        let data = Data(#"{"value": {"a": [1, 2.5, true, null, "x"], "b": {"c": false}}}"#.utf8)
        let value = try JSONDecoder().decode(Body.self, from: data).value
        #expect(value["a"] == [1, 2.5, true, nil, "x"])
        #expect(value["b"]?["c"] == false)
        #expect(value["a"]?.array?.first?.number?.intValue == 1)
    }

    @Test("decoding and encoding keeps key order, duplicates and number text")
    func roundTrip() throws {
        let text = #"{"z":1,"aps":{"badge":1.0,"alert":"hi"},"a":[1e2,true,null,"x"],"z":2}"#
        let value = try JSONValue(parsing: Data(text.utf8))
        #expect(value.jsonString == text)
        #expect(value.object?.keys == ["z", "aps", "a"])
        #expect(value.object?.duplicateKeys == ["z"])
        #expect(value["z"]?.number?.intValue == 2)
        #expect(value["aps"]?["badge"]?.number?.literal == "1.0")
        #expect(value["aps"]?["badge"]?.number?.intValue == 1)
    }

    @Test("whitespace goes, escapes decode, non-ASCII stays UTF-8")
    func compactEncoding() throws {
        let value = try JSONValue(parsing: Data("{ \"t\" : \"\\u4f60\\ud83d\\ude00\\n\\\"\" ,\t\"e\":\"é\" }".utf8))
        #expect(value["t"]?.string == "你😀\n\"")
        #expect(value.jsonString == #"{"t":"你😀\n\"","e":"é"}"#)
    }

    @Test(
        "strings are escaped exactly where RFC 8259 requires, at the start, the middle and the end, and read back",
        arguments: [
            ("", #""""#), ("plain", #""plain""#), ("\"", #""\"""#), ("\\", #""\\""#),
            ("\"start", #""\"start""#), ("end\\", #""end\\""#), ("a\nb\rc\td", #""a\nb\rc\td""#),
            ("\u{0}\u{1F}", #""\u0000\u001f""#), ("é\u{7F}你", "\"é\u{7F}你\""),
            ("x\"\"y\\\\z", #""x\"\"y\\\\z""#),
        ])
    func stringEscaping(text: String, json: String) throws {
        #expect(JSONValue.string(text).jsonString == json)
        #expect(try JSONValue(parsing: Data(json.utf8)).string == text)
    }

    @Test("setting a key replaces it in place, appends a new one, removes on nil")
    func objectMutation() {
        var object = JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3)])
        object["a"] = 4
        #expect(JSONValue.object(object).jsonString == #"{"b":2,"a":4}"#)
        object["c"] = "x"
        object["b"] = nil
        #expect(JSONValue.object(object).jsonString == #"{"a":4,"c":"x"}"#)
    }

    @Test(
        "rejects text that is not JSON, saying where",
        arguments: [
            ("", "the text is empty", 1, 1),
            ("{\"a\":1,}", "a trailing comma is not allowed before '}'", 1, 8),
            ("{\"a\":1 // note\n}", "comments are not allowed in JSON", 1, 8),
            ("{'a':1}", "expected a member name in double quotes", 1, 2),
            ("[1,]", "a trailing comma is not allowed before ']'", 1, 4),
            ("{\"a\":01}", "numbers must not have leading zeros", 1, 7),
            ("{\"a\":1.}", "a number needs digits after '.'", 1, 8),
            ("{\"a\":\"x\ny\"}", "control characters must be escaped inside strings", 1, 8),
            ("{\"a\":\"\\x\"}", "\\'x' is not a JSON escape sequence", 1, 7),
            ("{\"a\":\"\\ud800\"}", "a high surrogate \\u escape must be followed by a low surrogate", 1, 13),
            ("{\"a\":tru}", "unexpected 't'; expected a JSON value", 1, 6),
            ("{\"a\":1}x", "unexpected 'x' after the end of the JSON value", 1, 8),
            ("{\n  \"a\": [1, 2\n}", "expected ',' or ']' in the array", 3, 1),
            ("\"open", "a string is not closed before the end of the text", 1, 6),
        ]
    )
    func syntaxErrors(text: String, message: String, line: Int, column: Int) {
        #expect {
            try JSONValue(parsing: Data(text.utf8))
        } throws: { error in
            guard let error = error as? JSONSyntaxError else { return false }
            return error.message.hasPrefix(message) && error.line == line && error.column == column
        }
    }

    @Test("rejects invalid UTF-8 inside strings and a byte order mark")
    func invalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Data([0x22, 0xC3, 0x28, 0x22])) }
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Data([0xEF, 0xBB, 0xBF, 0x7B, 0x7D])) }
    }

    @Test("limits nesting depth instead of overflowing the stack")
    func depthLimit() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Data(deep.utf8)) }
    }

    @Test("literals build values")
    func literals() {
        let value: JSONValue = ["aps": ["badge": 3, "alert": "x", "f": 0.5, "n": nil, "b": true, "l": [1]]]
        #expect(value.jsonString == #"{"aps":{"badge":3,"alert":"x","f":0.5,"n":null,"b":true,"l":[1]}}"#)
        #expect(JSONNumber(2.0).literal == "2")
    }
}

@Suite("JSONValue to and from Foundation types (a notification's userInfo)")
struct JSONValueFoundationTests {
    @Test("foundationValue keeps booleans, integers, doubles and nesting; the way back sorts keys")
    func roundTrip() throws {
        let value = try JSONValue(parsing: Data(#"{"b":true,"n":1,"d":1.5,"s":"x","a":[null,false],"o":{"k":2}}"#.utf8))
        let userInfo = try #require(value.foundationValue as? [String: Any])
        #expect(userInfo["b"] as? Bool == true)
        #expect(userInfo["n"] as? Int == 1)
        #expect(userInfo["d"] as? Double == 1.5)
        #expect((userInfo["a"] as? [Any])?.first is NSNull)
        let back = try #require(JSONValue(foundationValue: userInfo))
        #expect(back.jsonString == #"{"a":[null,false],"b":true,"d":1.5,"n":1,"o":{"k":2},"s":"x"}"#)
        #expect(JSONValue(foundationValue: ["when": Date()]) == nil)
        #expect(JSONValue(foundationValue: NSNumber(value: 7))?.jsonString == "7")
        #expect(JSONValue(foundationValue: NSNumber(value: true))?.jsonString == "true")
        #expect(JSONValue(foundationValue: NSNumber(value: 2.5))?.jsonString == "2.5")
        #expect(JSONValue(foundationValue: Double.infinity) == nil)
    }
}
