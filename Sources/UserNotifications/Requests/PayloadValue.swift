import Foundation

/// A JSON value decoded strictly (a boolean is never a number), for mapping remote payloads; Foundation's
/// `JSONSerialization` cannot tell `1` from `true` on every platform.
enum PayloadValue: Decodable {
    case null
    case bool(Bool)
    case integer(Int)
    case double(Double)
    case string(String)
    case array([PayloadValue])
    case object([String: PayloadValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([PayloadValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: PayloadValue].self))
        }
    }

    subscript(key: String) -> PayloadValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a number (integers and doubles, never booleans).
    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    var array: [PayloadValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The value as Foundation types, as `userInfo` holds it.
    var foundationValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .integer(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map(\.foundationValue)
        case .object(let object): object.mapValues(\.foundationValue)
        }
    }

    /// The text iOS shows for a value in a `loc-args` array.
    var text: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): value ? "1" : "0"
        default: ""
        }
    }
}
