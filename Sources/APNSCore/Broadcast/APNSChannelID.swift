import Foundation

/// The `apns-channel-id` of a broadcast channel: a base64 string APNs makes at random when a channel
/// is created. A client never chooses it and should assume nothing of its size.
///
/// A value that is not base64, or longer than ``maximumLength``, gets `400 BadChannelId`.
public struct APNSChannelID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The header value as given.
    public let rawValue: String

    /// The longest channel ID accepted, in characters.
    public static let maximumLength = 128

    /// A channel ID from a header value, or `nil` when it is empty, not standard base64 or too long.
    public init?(rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= Self.maximumLength,
            let bytes = Data(base64Encoded: rawValue), !bytes.isEmpty
        else { return nil }
        self.rawValue = rawValue
    }

    /// A new random channel ID: 16 random bytes, base64 (24 characters), as APNs' IDs look.
    public static func random() -> APNSChannelID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return APNSChannelID(rawValue: Data(bytes).base64EncodedString())!
    }

    /// Why `text` is not a channel ID (the `BadChannelId` message), or `nil` when it is one.
    public static func problem(with text: String) -> String? {
        if text.isEmpty { return "apns-channel-id is empty; use the ID the channel's creation answered" }
        if text.utf8.count > maximumLength {
            return "apns-channel-id is \(text.utf8.count) characters; a channel ID is at most \(maximumLength)"
        }
        guard APNSChannelID(rawValue: text) != nil else {
            return "apns-channel-id '\(text)' is not base64; use the ID the channel's creation answered, as it was"
        }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = APNSChannelID(rawValue: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: Self.problem(with: text) ?? "not a channel ID"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
