/// A payload that could not be read, with what was wrong.
public struct APNSPayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem: an open set of codes.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The bytes are not JSON.
        public static let invalidJSON = Code(rawValue: "invalid-json")
        /// The JSON's top level is not an object.
        public static let notAnObject = Code(rawValue: "not-an-object")
        /// A `.apns` file is missing something the simulator needs.
        public static let invalidSimulatorFile = Code(rawValue: "invalid-simulator-file")
    }

    /// What kind of problem.
    public let code: Code
    /// What was wrong and how to fix it.
    public let message: String
    /// The lower-level error, when there is one (a ``JSONSyntaxError``).
    public let cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public static func == (lhs: APNSPayloadError, rhs: APNSPayloadError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    public var description: String { message }
}
