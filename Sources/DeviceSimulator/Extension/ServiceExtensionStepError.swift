/// Why a manifest service extension step could not be done; the device logs it and shows the original content.
public struct ServiceExtensionStepError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
