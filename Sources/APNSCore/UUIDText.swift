package import Foundation

/// Whether text is a UUID in 8-4-4-4-12 hexadecimal form (either case), as `UUID(uuidString:)` accepts it, checked
/// byte by byte: Foundation's parser on Linux goes through `sscanf`, which cost the gateway and the provider a
/// measurable share of every request.
package enum UUIDText {
    /// The UUID `text` names, or `nil` when it is not in 8-4-4-4-12 form (``isValid(_:)``): what `UUID(uuidString:)`
    /// answers, without `sscanf`.
    package static func parse(_ text: String) -> UUID? {
        parse(text, lowercaseOnly: false)
    }

    /// The UUID `text` names when it is in its lower-case 8-4-4-4-12 form, the form a UUID is read back in (a
    /// database's `uuid`): text that is kept as a UUID is checked by this alone, without formatting the UUID again
    /// to compare (or matching a pattern in SQL, 1.5 µs a row in PostgreSQL).
    package static func parseLowercase(_ text: String) -> UUID? {
        parse(text, lowercaseOnly: true)
    }

    private static func parse(_ text: String, lowercaseOnly: Bool) -> UUID? {
        var bytes = (
            UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
            UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0)
        )
        var count = 0
        var digits = 0
        let parsed = withUnsafeMutableBytes(of: &bytes) { output -> Bool in
            for byte in text.utf8 {
                switch count {
                case 8, 13, 18, 23:
                    guard byte == UInt8(ascii: "-") else { return false }
                default:
                    guard let value = HexDigit.value(byte), digits < 32 else { return false }
                    if lowercaseOnly, byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "F") { return false }
                    output[digits / 2] |= digits % 2 == 0 ? value << 4 : value
                    digits += 1
                }
                count += 1
            }
            return count == 36
        }
        return parsed ? UUID(uuid: bytes) : nil
    }

    /// True when `text` is 36 characters: hexadecimal digits with dashes at 8, 13, 18 and 23.
    package static func isValid(_ text: String) -> Bool {
        parse(text) != nil
    }
}
