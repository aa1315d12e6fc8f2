import APNSCore
import Foundation
import NIOCore
import ProviderStorage

/// `{{name|default}}` in a notification's text: each device's attribute of that name (``DeviceRecord/attributes``),
/// or the default for a device without it. Every variable has a default, so no device gets a broken text; a value
/// is put in as text, never read again for variables.
enum TextVariables {
    /// The longest default.
    static let maximumDefault = 64

    /// Checks every string of `value` (a payload built from content); whether any names a variable.
    ///
    /// - Throws: ``ProviderError`` naming the string's place (`field` and its path) for `{{` not closed, a name that
    ///   is not one, or a variable without a default.
    static func check(_ value: JSONValue, field: String) throws(ProviderError) -> Bool {
        switch value {
        case .string(let text): return try check(text, field: field)
        case .object(let object):
            var found = false
            // Every `{{` of a payload is then a variable checked here: the render never searches in vain.
            if let key = object.members.first(where: { $0.key.contains("{{") })?.key {
                throw .field("\(field).\(key.prefix(40))", "a key names no variable: write {{ in values only")
            }
            for member in object.members where try check(member.value, field: "\(field).\(member.key)") {
                found = true
            }
            return found
        case .array(let values):
            var found = false
            for (index, value) in values.enumerated() where try check(value, field: "\(field)[\(index)]") {
                found = true
            }
            return found
        default: return false
        }
    }

    /// Checks the variables of one text; whether it names any.
    static func check(_ text: String, field: String) throws(ProviderError) -> Bool {
        var rest = Substring(text)
        var found = false
        while let open = rest.range(of: "{{") {
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else {
                throw .field(field, "has {{ without }}: a variable is {{name|default}}, such as {{firstName|there}}")
            }
            let inner = after[..<close.lowerBound]
            let parts = inner.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0]
            guard isName(name) else {
                throw .field(
                    field,
                    "{{\(inner.prefix(40))}} names no attribute: a name is a letter, then up to "
                        + "\(DeviceAttributes.maximumAttributeName - 1) letters, digits or _")
            }
            guard parts.count == 2 else {
                throw .field(
                    field,
                    "the variable {{\(name)}} has no default: write {{\(name)|…}}; a device without the "
                        + "attribute \(name) gets the default")
            }
            guard parts[1].count <= maximumDefault, !parts[1].contains("{{") else {
                throw .field(field, "the default of {{\(name)}} is at most \(maximumDefault) characters, without {{")
            }
            found = true
            rest = after[close.upperBound...]
        }
        return found
    }

    private static func isName(_ name: Substring) -> Bool {
        (1...DeviceAttributes.maximumAttributeName).contains(name.count) && name.first?.isLetter == true
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// `body` (an encoded payload) with each `{{name|default}}` replaced by the attribute `name` of `attributes`
    /// (a device's, as stored: a JSON object), else of `userAttributes` (its user's), written as JSON text, or by its
    /// default.
    static func render(_ body: ByteBuffer, attributes: JSONObject?, userAttributes: JSONObject? = nil) -> ByteBuffer {
        let bytes = Array(body.readableBytesView)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 64)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "{"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "{"),
                let (name, fallback, end) = placeholder(in: bytes, at: index + 2)
            else {
                output.append(bytes[index])
                index += 1
                continue
            }
            if case .string(let value)? = attributes?[name] ?? userAttributes?[name] {
                var quoted: [UInt8] = []
                JSONValue.writeString(value, into: &quoted)
                output.append(contentsOf: quoted.dropFirst().dropLast())
            } else {
                output.append(contentsOf: bytes[fallback])
            }
            index = end
        }
        return ByteBuffer(bytes: output)
    }

    /// The placeholder whose name starts at `start` (after `{{`): its name, its default's bytes (JSON text as
    /// written) and where it ends (after `}}`); `nil` when it is not one.
    private static func placeholder(in bytes: [UInt8], at start: Int) -> (String, Range<Int>, Int)? {
        var index = start
        while index < bytes.count, bytes[index] < 0x80,
            Character(UnicodeScalar(bytes[index])).isLetter || Character(UnicodeScalar(bytes[index])).isNumber
                || bytes[index] == UInt8(ascii: "_")
        {
            index += 1
        }
        guard index > start, index < bytes.count, bytes[index] == UInt8(ascii: "|") else { return nil }
        let name = String(decoding: bytes[start..<index], as: UTF8.self)
        let fallbackStart = index + 1
        var close = fallbackStart
        while close + 1 < bytes.count, !(bytes[close] == UInt8(ascii: "}") && bytes[close + 1] == UInt8(ascii: "}")) {
            close += 1
        }
        guard close + 1 < bytes.count else { return nil }
        return (name, fallbackStart..<close, close + 2)
    }
}
