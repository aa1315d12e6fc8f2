package import Crypto
package import Foundation

/// The SHA-256 of a device secret, held inline (four words, no allocation): a registry of ten million devices keeps
/// one for each.
package struct DeviceSecretDigest: Hashable, Sendable {
    /// The digest's bytes in memory order.
    let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest SHA-256 computed.
    package init(_ digest: SHA256.Digest) {
        self.init(Array(digest))!
    }

    /// A digest from its 32 bytes; `nil` for any other count.
    package init?<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        guard bytes.count == 32 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
        self.words = words
    }

    /// The digest whose bytes are `words`.
    init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// The 32 bytes.
    package var data: Data { withUnsafeBytes(of: words) { Data($0) } }

    package static func == (left: Self, right: Self) -> Bool {
        // Every word is compared, whatever the first one says: no early exit to time.
        (left.words.0 ^ right.words.0) | (left.words.1 ^ right.words.1) | (left.words.2 ^ right.words.2)
            | (left.words.3 ^ right.words.3) == 0
    }

    package func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: words) { hasher.combine(bytes: $0) }
    }
}
