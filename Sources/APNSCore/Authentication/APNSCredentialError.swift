/// A key, certificate or identifier that cannot be used to authenticate with APNs.
public struct APNSCredentialError: Error, Sendable, CustomStringConvertible {
    /// What was wrong and how to fix it. Never contains key material.
    public let message: String
    /// The lower-level error, when there is one.
    public let cause: (any Error & Sendable)?

    public init(_ message: String, cause: (any Error & Sendable)? = nil) {
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}
