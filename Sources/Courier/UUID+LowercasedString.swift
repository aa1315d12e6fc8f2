import Foundation

extension UUID {
    /// The canonical lowercase 8-4-4-4-12 text, as APNs writes `apns-id` (without `uuidString`'s `sprintf`).
    package var lowercasedString: String {
        let digits = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var out = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[out] = UInt8(ascii: "-")
                        out += 1
                    }
                    buffer[out] = digits[Int(byte >> 4)]
                    buffer[out + 1] = digits[Int(byte & 0x0f)]
                    out += 2
                }
                return out
            }
        }
    }
}
