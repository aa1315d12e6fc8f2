/// A strict RFC 8259 JSON parser over UTF-8 bytes that keeps member order and number text, and reports where input
/// went wrong by line and column.
///
/// Not `building`, it checks the same grammar without making the values: every string, number, array and object
/// reads as an empty one of its kind (`""`, `0`, `[]`, `{}`), so only the top-level value's kind is known. Its errors
/// may name less (a member name it did not keep): ``JSONValue/checkSyntax(of:)`` parses again to throw the full one.
struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    let maximumDepth: Int
    let building: Bool

    init(bytes: [UInt8], maximumDepth: Int = 512, building: Bool = true) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.building = building
    }

    /// Parses one JSON text: a single value with only whitespace around it.
    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw error("the text starts with a UTF-8 byte order mark; JSON must not", at: 0)
        }
        skipWhitespace()
        guard index < bytes.count else { throw error("the text is empty; expected a JSON value") }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(describe(bytes[index])) after the end of the JSON value")
        }
        return value
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < maximumDepth else { throw error("values nest deeper than \(maximumDepth) levels") }
        guard index < bytes.count else { throw error("the text ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "/"): throw error("comments are not allowed in JSON")
        case UInt8(ascii: "'"): throw error("strings must use double quotes, not single quotes")
        default: throw error("unexpected \(describe(bytes[index])); expected a JSON value")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONObject {
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            return object
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else {
                if peek(UInt8(ascii: "}")) { throw error("a trailing comma is not allowed before '}'") }
                if peek(UInt8(ascii: "/")) { throw error("comments are not allowed in JSON") }
                throw error("expected a member name in double quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after the member name \"\(key)\"") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            if building { object.members.append(JSONObject.Member(key: key, value: value)) }
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
            } else if peek(UInt8(ascii: "}")) {
                index += 1
                return object
            } else if peek(UInt8(ascii: "/")) {
                throw error("comments are not allowed in JSON")
            } else {
                throw error("expected ',' or '}' after the value of \"\(key)\"")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> [JSONValue] {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            return elements
        }
        while true {
            skipWhitespace()
            if peek(UInt8(ascii: "]")) { throw error("a trailing comma is not allowed before ']'") }
            let element = try parseValue(depth: depth + 1)
            if building { elements.append(element) }
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
            } else if peek(UInt8(ascii: "]")) {
                index += 1
                return elements
            } else {
                throw error("expected ',' or ']' in the array")
            }
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits after '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("numbers must not have leading zeros") }
        } else {
            skipDigits()
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits after '.'") }
            skipDigits()
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("a number needs digits in its exponent")
            }
            skipDigits()
        }
        return JSONNumber(validatedLiteral: building ? String(decoding: bytes[start..<index], as: UTF8.self) : "0")
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else { throw error("unexpected \(describe(bytes[index])); expected a JSON value") }
        index += expected.count
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }
    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
