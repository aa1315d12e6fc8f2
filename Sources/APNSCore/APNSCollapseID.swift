/// The `apns-collapse-id` header: notifications with the same collapse ID are shown as one, the newest replacing the
/// older.
public struct APNSCollapseID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The longest collapse ID APNs accepts, in UTF-8 bytes; longer ones get `400 BadCollapseId`.
    public static let maximumLength = 64

    public let rawValue: String

    /// A collapse ID, or `nil` when it is longer than ``maximumLength`` bytes.
    public init?(rawValue: String) {
        guard rawValue.utf8.count <= Self.maximumLength else { return nil }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}
