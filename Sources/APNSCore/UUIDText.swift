/// Whether text is a UUID in 8-4-4-4-12 hexadecimal form (either case), as `UUID(uuidString:)` accepts it, checked
/// byte by byte: Foundation's parser on Linux goes through `sscanf`, which cost the gateway and the provider a
/// measurable share of every request.
package enum UUIDText {
    /// True when `text` is 36 characters: hexadecimal digits with dashes at 8, 13, 18 and 23.
    package static func isValid(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            switch count {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard HexDigit.value(byte) != nil else { return false }
            }
            count += 1
            if count > 36 { return false }
        }
        return count == 36
    }
}
