/// Data the gateway reads (its journal, a courier message, an admin request) is not what it should be.
public struct GatewayDataError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, for a person.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
