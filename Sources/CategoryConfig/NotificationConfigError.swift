/// A `NotificationConfig` that cannot be read: what is wrong and where.
public struct NotificationConfigError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and where, for a person: `UNNotificationAction.see1.title is missing`.
    public let message: String

    init(_ error: any Error) {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            message = "\(Self.path(context.codingPath + [key])) is missing"
        case DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty:
            message = "the configuration is not a JSON object: give {\"NotificationConfig\": {...}} or the inner object"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            message = "\(Self.path(context.codingPath)): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            message = "not JSON, or not an object: \(context.debugDescription)"
        default:
            message = "\(error)"
        }
    }

    public var description: String { message }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the configuration" : keys.map(\.stringValue).joined(separator: ".")
    }
}
