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

    /// True when `text` is 36 characters: hexadecimal digits with dashes at 8, 13, 18 and 23.
    package static func isValid(_ text: String) -> Bool {
        parse(text) != nil
    }

    private static func parse(_ text: String, lowercaseOnly: Bool) -> UUID? {
        // Every apns-id a provider or the gateway reads is a native string, whose bytes are read in place.
        var text = text
        return text.withUTF8 { parse($0, lowercaseOnly: lowercaseOnly) }
    }

    /// Reads the 16 bytes two digits at a time from where ``pairs`` says, through ``digits``, with no branch per
    /// digit: the flags of every digit read are gathered and looked at once at the end (a provider parses one for
    /// every answer APNs gives, the gateway one for every request that names its `apns-id`).
    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>, lowercaseOnly: Bool) -> UUID? {
        guard utf8.count == 36, utf8[8] == dash, utf8[13] == dash, utf8[18] == dash, utf8[23] == dash else {
            return nil
        }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var flags: UInt8 = 0
        digits.withUnsafeBufferPointer { digits in
            withUnsafeMutableBytes(of: &uuid) { bytes in
                for (index, start) in pairs.enumerated() {
                    let high = digits[Int(utf8[start])]
                    let low = digits[Int(utf8[start + 1])]
                    flags |= high | low
                    bytes[index] = (high & 0x0F) << 4 | (low & 0x0F)
                }
            }
        }
        guard flags & notDigit == 0, !lowercaseOnly || flags & upperCase == 0 else { return nil }
        return UUID(uuid: uuid)
    }

    private static let dash = UInt8(ascii: "-")
    /// Where each of the 16 bytes' two digits start.
    private static let pairs = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]
    /// A flag of ``digits`` for a byte that is not a hexadecimal digit.
    private static let notDigit: UInt8 = 0x80
    /// A flag of ``digits`` for an upper-case digit (`A` to `F`).
    private static let upperCase: UInt8 = 0x40
    /// Every byte's value as a hexadecimal digit in the low four bits, with ``notDigit`` or ``upperCase`` above.
    private static let digits: [UInt8] = (0...255).map { byte in
        guard let value = HexDigit.value(UInt8(byte)) else { return notDigit }
        return UInt8(ascii: "A")...UInt8(ascii: "F") ~= UInt8(byte) ? value | upperCase : value
    }
}
