/// A client that cannot be set up as asked: a bad URL, an unreadable certificate, a key that cannot sign.
public struct APNSClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong and how to fix it.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
