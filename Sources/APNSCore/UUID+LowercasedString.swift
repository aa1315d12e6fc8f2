package import Foundation

extension UUID {
    /// The canonical lowercase 8-4-4-4-12 text, as APNs writes `apns-id` (without `uuidString`'s `sprintf`).
    package var lowercasedString: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeLowercased(into: buffer.baseAddress!)
            return 36
        }
    }

    /// Appends ``lowercasedString``'s 36 bytes to `bytes`.
    package func appendLowercased(to bytes: inout [UInt8]) {
        let count = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 36))
        bytes.withUnsafeMutableBufferPointer { writeLowercased(into: $0.baseAddress! + count) }
    }

    private func writeLowercased(into buffer: UnsafeMutablePointer<UInt8>) {
        withUnsafeBytes(of: uuid) { bytes in
            var out = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    buffer[out] = UInt8(ascii: "-")
                    out += 1
                }
                buffer[out] = HexDigit.lowercase(byte >> 4)
                buffer[out + 1] = HexDigit.lowercase(byte & 0x0f)
                out += 2
            }
        }
    }
}
