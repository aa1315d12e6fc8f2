import Foundation

extension JSONValue {
    /// The value as Foundation types, as a notification's `userInfo` holds it: `NSNull`, `Bool`, `Int` (a number
    /// written as an integer that fits) or `Double`, `String`, `[Any]` and `[String: Any]` (where a key appears twice,
    /// its last value).
    public var foundationValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .number(let number): Int(number.literal) ?? number.doubleValue
        case .string(let value): value
        case .array(let values): values.map(\.foundationValue)
        case .object(let object):
            Dictionary(object.members.map { ($0.key, $0.value.foundationValue) }) { _, last in last }
        }
    }

    /// A value from Foundation types (``foundationValue``'s, or `NSNumber`, `[AnyHashable: Any]`); `nil` when
    /// something in it is not JSON (a date, a non-finite number, a key that is not a string). Object keys are sorted,
    /// since a dictionary has no order.
    public init?(foundationValue value: Any) {
        switch value {
        case is NSNull: self = .null
        case let text as String: self = .string(text)
        case let flag as Bool where !(value is NSNumber): self = .bool(flag)
        case let integer as Int where !(value is NSNumber): self = .number(JSONNumber(integer))
        case let double as Double where !(value is NSNumber):
            guard double.isFinite else { return nil }
            self = .number(JSONNumber(double))
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" {
                self = .bool(number.boolValue)
            } else if let integer = Int(exactly: number.doubleValue), "\(number)" == String(integer) {
                self = .number(JSONNumber(integer))
            } else {
                guard number.doubleValue.isFinite else { return nil }
                self = .number(JSONNumber(number.doubleValue))
            }
        case let values as [Any]:
            var elements: [JSONValue] = []
            for element in values {
                guard let converted = JSONValue(foundationValue: element) else { return nil }
                elements.append(converted)
            }
            self = .array(elements)
        case let dictionary as [AnyHashable: Any]:
            var members: [(key: String, value: JSONValue)] = []
            for (key, element) in dictionary {
                guard let key = key.base as? String, let converted = JSONValue(foundationValue: element) else {
                    return nil
                }
                members.append((key, converted))
            }
            self = .object(JSONObject(members.sorted { $0.key < $1.key }))
        default: return nil
        }
    }
}
