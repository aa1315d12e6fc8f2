/// Why a manifest service extension step could not be done; the device logs it and shows the original content.
package struct ServiceExtensionStepError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package let message: String

    init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
