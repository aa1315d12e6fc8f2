public import Foundation

/// A device token: the bytes APNs gives an app for one device, written in a request's `:path` as hexadecimal.
///
/// Apple says not to assume a size. Today's tokens are 32 bytes; the legacy binary protocol allowed up to 100, so
/// Herald accepts 1 to ``maximumByteCount`` bytes and either case of hex digits, and always writes lowercase.
///
/// ```swift
/// let token = try APNSDeviceToken(hex: "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0")
/// token.bytes.count  // 32
/// ```
public struct APNSDeviceToken: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The most bytes a token may have (the legacy binary protocol's limit).
    public static let maximumByteCount = 100

    /// The bytes, held inline when they fit in 32 (every token iOS gives today): a token is then a value of 40 bytes
    /// that hashes as four words, with no allocation of its own, which is what a table of ten million keeps per key.
    private let storage: Storage

    private enum Storage: Hashable, Sendable {
        /// 1 to 32 bytes, big-endian in the words, zero after the last byte.
        case inline(UInt64, UInt64, UInt64, UInt64, count: UInt8)
        /// 33 to ``maximumByteCount`` bytes.
        case heap([UInt8])
    }

    /// The token's bytes.
    public var bytes: Data { withBytes { Data($0) } }

    /// How many bytes the token has.
    public var byteCount: Int {
        switch storage {
        case .inline(_, _, _, _, let count): Int(count)
        case .heap(let bytes): bytes.count
        }
    }

    /// Calls `body` with the token's bytes, without copying them to the heap.
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch storage {
        case .inline(let a, let b, let c, let d, let count):
            var words = (a.bigEndian, b.bigEndian, c.bigEndian, d.bigEndian)
            return try withUnsafeBytes(of: &words) { try body(UnsafeRawBufferPointer(rebasing: $0[..<Int(count)])) }
        case .heap(let bytes):
            return try bytes.withUnsafeBytes(body)
        }
    }

    /// The token as four big-endian words (zero after its last byte) and its length, when it has 32 bytes or fewer
    /// (every token iOS gives today); `nil` for a longer one. A table of millions of tokens keeps these.
    package var packed: (words: (UInt64, UInt64, UInt64, UInt64), count: UInt8)? {
        guard case .inline(let a, let b, let c, let d, let count) = storage else { return nil }
        return ((a, b, c, d), count)
    }

    /// The token ``packed`` gave.
    ///
    /// - Precondition: `count` is 1 to 32.
    package init(packed words: (UInt64, UInt64, UInt64, UInt64), count: UInt8) {
        precondition((1...32).contains(count), "a packed token has 1 to 32 bytes")
        storage = .inline(words.0, words.1, words.2, words.3, count: count)
    }

    /// The token as lowercase hexadecimal, as it goes in `:path`.
    public var hex: String {
        withBytes { bytes in HexDigit.lowercaseText(bytes) }
    }

    /// A token from raw bytes, as `didRegisterForRemoteNotificationsWithDeviceToken` delivers it.
    ///
    /// - Throws: ``APNSRequestRejection`` with `BadDeviceToken` when there are no bytes or more than
    ///   ``maximumByteCount``.
    public init(bytes: Data) throws(APNSRequestRejection) {
        try self.init(byteArray: [UInt8](bytes))
    }

    private init(byteArray bytes: [UInt8]) throws(APNSRequestRejection) {
        guard !bytes.isEmpty, bytes.count <= Self.maximumByteCount else {
            throw APNSRequestRejection(
                .badDeviceToken,
                "a device token has 1 to \(Self.maximumByteCount) bytes; this one has \(bytes.count)"
            )
        }
        guard bytes.count <= 32 else {
            storage = .heap(bytes)
            return
        }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
        storage = .inline(
            UInt64(bigEndian: words.0), UInt64(bigEndian: words.1), UInt64(bigEndian: words.2),
            UInt64(bigEndian: words.3), count: UInt8(bytes.count))
    }

    /// A token from its hexadecimal text.
    ///
    /// - Throws: ``APNSRequestRejection`` with `MissingDeviceToken` for empty text, `BadDeviceToken` for text that
    ///   is not an even number of hex digits or names more than ``maximumByteCount`` bytes.
    public init(hex: String) throws(APNSRequestRejection) {
        guard !hex.isEmpty else {
            throw APNSRequestRejection(.missingDeviceToken, "the device token is empty; put its hex digits in the path")
        }
        var text = hex
        storage = try text.withUTF8 { utf8 in Self.storage(hex: utf8) }.get()
    }

    /// A token from the UTF-8 of its hex digits, read in place (the gateway's, from a request's path).
    package init(hexUTF8 utf8: UnsafeBufferPointer<UInt8>) throws(APNSRequestRejection) {
        guard !utf8.isEmpty else {
            throw APNSRequestRejection(.missingDeviceToken, "the device token is empty; put its hex digits in the path")
        }
        storage = try Self.storage(hex: utf8).get()
    }

    /// Decodes hex digits straight into the token's storage: a token of up to 32 bytes is made with no allocation.
    private static func storage(hex utf8: UnsafeBufferPointer<UInt8>) -> Result<Storage, APNSRequestRejection> {
        guard utf8.count % 2 == 0 else {
            return .failure(
                APNSRequestRejection(
                    .badDeviceToken, "a device token is an even number of hex digits; this one has \(utf8.count)"))
        }
        let count = utf8.count / 2
        guard count <= maximumByteCount else {
            return .failure(
                APNSRequestRejection(
                    .badDeviceToken, "a device token has 1 to \(maximumByteCount) bytes; this one has \(count)"))
        }
        let decoded: Result<Storage, APNSRequestRejection>
        if count <= 32 {
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            let valid = withUnsafeMutableBytes(of: &words) { decode(utf8, into: $0) }
            decoded = .success(
                .inline(
                    UInt64(bigEndian: words.0), UInt64(bigEndian: words.1), UInt64(bigEndian: words.2),
                    UInt64(bigEndian: words.3), count: UInt8(count)))
            guard valid else { return .failure(notHex(utf8)) }
        } else {
            var bytes = [UInt8](repeating: 0, count: count)
            guard bytes.withUnsafeMutableBytes({ decode(utf8, into: $0) }) else { return .failure(notHex(utf8)) }
            decoded = .success(.heap(bytes))
        }
        return decoded
    }

    /// Writes the bytes of `utf8`'s hex digit pairs to `bytes`; `false` at a byte that is not a hex digit.
    private static func decode(_ utf8: UnsafeBufferPointer<UInt8>, into bytes: UnsafeMutableRawBufferPointer) -> Bool {
        for index in 0..<(utf8.count / 2) {
            guard let high = nibble(utf8[2 * index]), let low = nibble(utf8[2 * index + 1]) else { return false }
            bytes[index] = high << 4 | low
        }
        return true
    }

    private static func notHex(_ utf8: UnsafeBufferPointer<UInt8>) -> APNSRequestRejection {
        let first = utf8.first { nibble($0) == nil } ?? utf8[0]
        return APNSRequestRejection(
            .badDeviceToken,
            "a device token has only hex digits 0-9 and a-f; found '\(Character(Unicode.Scalar(first)))'")
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(hex: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    public var description: String { hex }

    /// The first 8 hex digits, for logs: enough to find a token, too little to use it.
    public var logPrefix: String { String(hex.prefix(8)) }

    private static func nibble(_ byte: UInt8) -> UInt8? { HexDigit.value(byte) }
}
