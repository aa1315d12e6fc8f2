/// Data the gateway reads (its journal, a courier message, an admin request) is not what it should be.
package struct GatewayDataError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, for a person.
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
