/// Hexadecimal digits as bytes, for the wire forms made of them (device tokens, `apns-id`s), read and written without
/// Foundation's formatting or scanning.
package enum HexDigit {
    /// The value of one hexadecimal digit in either case, or `nil` for any other byte.
    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The lowercase digit of a value from 0 to 15.
    @inline(__always)
    package static func lowercase(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    /// The uppercase digit of a value from 0 to 15.
    @inline(__always)
    package static func uppercase(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") - 10 + value
    }

    /// The bytes as lower-case hexadecimal text, two digits a byte, written in place.
    package static func lowercaseText(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = lowercase(byte >> 4)
                buffer[2 * index + 1] = lowercase(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }
}
