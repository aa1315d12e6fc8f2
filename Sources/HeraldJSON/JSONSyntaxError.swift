/// JSON text that does not parse, with where it went wrong.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, for a person.
    public let message: String
    /// The byte offset of the problem from the start of the text.
    public let offset: Int
    /// The 1-based line of the problem.
    public let line: Int
    /// The 1-based column (in characters) of the problem.
    public let column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}
