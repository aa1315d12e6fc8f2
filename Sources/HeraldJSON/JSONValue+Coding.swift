public import Foundation

extension JSONValue {
    /// Parses one JSON text.
    ///
    /// - Parameter data: UTF-8 JSON text.
    /// - Throws: ``JSONSyntaxError`` saying where and why the text is not JSON.
    public init(parsing data: Data) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: Array(data))
        self = try parser.parseDocument()
    }

    /// Checks that `bytes` are one JSON text as ``init(parsing:)`` reads it, without making the value, and answers the
    /// ``typeName`` of its top-level value: for a caller that only needs to know (the gateway, of every push's
    /// payload), at a fraction of the cost, with no allocation for text without escapes.
    ///
    /// - Throws: the ``JSONSyntaxError`` ``init(parsing:)`` throws for the same bytes.
    public static func checkSyntax(of bytes: [UInt8]) throws(JSONSyntaxError) -> String {
        var checker = JSONParser(bytes: bytes, building: false)
        do {
            return try checker.parseDocument().typeName
        } catch {
            // The full parser's error names what the check did not keep (a member name, a string's position).
            var parser = JSONParser(bytes: bytes)
            return try parser.parseDocument().typeName
        }
    }

    /// The value as compact UTF-8 JSON, keys in their order, numbers as written.
    public func encoded() -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output)
        return Data(output)
    }

    /// Appends the value as compact UTF-8 JSON to `output`, as ``encoded()`` writes it.
    public func write(into output: inout [UInt8]) {
        JSONWriter.write(self, into: &output)
    }

    /// Appends `string` as a JSON string (quoted, escaped as ``write(into:)`` escapes it) to `output`: for writers that
    /// put a known shape's fields out one by one instead of building a value first.
    package static func writeString(_ string: String, into output: inout [UInt8]) {
        JSONWriter.writeString(string, into: &output)
    }

    /// The value as a compact JSON string.
    public var jsonString: String { String(decoding: encoded(), as: UTF8.self) }
}

extension JSONValue: Codable {
    /// Decodes any JSON value with any `Decoder` (for JSON bodies read with `JSONDecoder`). Object keys come in the
    /// decoder's order, which `JSONDecoder` does not promise to keep.
    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: MemberKey.self) {
            var members: [(key: String, value: JSONValue)] = []
            for key in object.allKeys {
                members.append((key.stringValue, try object.decode(JSONValue.self, forKey: key)))
            }
            self = .object(JSONObject(members))
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(JSONNumber(value))
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes the value with any `Encoder` (object keys in order; a duplicate key keeps its last value; numbers as
    /// integers when they are written as integers, else as doubles).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let integer = Int(number.literal) {
                try container.encode(integer)
            } else {
                try container.encode(number.doubleValue)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let object):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in object.members { try container.encode(member.value, forKey: MemberKey(member.key)) }
        }
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(_ key: String) { stringValue = key }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
