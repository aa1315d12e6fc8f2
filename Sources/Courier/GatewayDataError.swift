package import Foundation

/// Data the gateway reads (its journal, a courier message, an admin request) is not what it should be, or what it
/// was asked to keep could not be written.
package struct GatewayDataError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, for a person.
    package let message: String
    /// The gateway could not write its journal (a full disk): nothing was kept, and the same request may succeed
    /// later. The admin API answers `503`, not `4xx`.
    package let isStorageFailure: Bool

    package init(_ message: String, isStorageFailure: Bool = false) {
        self.message = message
        self.isStorageFailure = isStorageFailure
    }

    /// The journal at `url` could not be written.
    package static func storage(_ url: URL) -> GatewayDataError {
        GatewayDataError(
            "the gateway could not write its journal \(url.path) (is the disk full?); nothing was kept: free space "
                + "and try again",
            isStorageFailure: true)
    }

    package var description: String { message }
}
