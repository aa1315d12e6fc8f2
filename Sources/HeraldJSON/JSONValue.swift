/// A JSON value that keeps everything a payload author wrote: object key order, duplicate keys, and the exact text of
/// every number, so a payload decodes and encodes back without a key lost or moved.
///
/// ```swift
/// let value = try JSONValue(parsing: Data(#"{"aps":{"badge":1}}"#.utf8))
/// value["aps"]?["badge"]?.number?.intValue  // 1
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The value for `key` when this is an object, else `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The string when this is a string, else `nil`.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number when this is a number, else `nil`.
    public var number: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The object when this is an object, else `nil`.
    public var object: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements when this is an array, else `nil`.
    public var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The JSON type's name as a person would say it ("string", "number", "object", ...), for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}
