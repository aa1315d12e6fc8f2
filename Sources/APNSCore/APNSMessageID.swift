public import Foundation

/// The `apns-id` header: a UUID naming one notification, echoed in APNs' response.
///
/// APNs documents the canonical lowercase 8-4-4-4-12 form; a value that is not a UUID gets `400 BadMessageId`. The
/// text is kept exactly as given, so the response echoes what the provider sent.
public struct APNSMessageID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The header value as given.
    public let rawValue: String

    /// The UUID the value names.
    public var uuid: UUID { UUIDText.parse(rawValue)! }

    /// An identifier from a header value, or `nil` when it is not a UUID in 8-4-4-4-12 form.
    public init?(headerValue: String) {
        guard UUIDText.isValid(headerValue) else { return nil }
        self.rawValue = headerValue
    }

    /// The canonical lowercase form of `uuid`.
    public init(_ uuid: UUID = UUID()) {
        self.rawValue = uuid.lowercasedString
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = APNSMessageID(headerValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
