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

    /// The value as compact UTF-8 JSON, keys in their order, numbers as written.
    public func encoded() -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        JSONWriter.write(self, into: &output)
        return Data(output)
    }

    /// The value as a compact JSON string.
    public var jsonString: String { String(decoding: encoded(), as: UTF8.self) }
}

extension JSONValue: Encodable {
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
