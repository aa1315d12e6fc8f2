/// A JSON number kept as the exact text it was written with, so `1`, `1.0` and `1e0` stay distinct on the way back out.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number's literal text, valid JSON number syntax.
    public let literal: String

    /// Wraps literal text that is already known to be valid JSON number syntax (the parser's output).
    init(validatedLiteral: String) {
        self.literal = validatedLiteral
    }

    /// A number from an integer.
    public init(_ value: Int) {
        self.literal = String(value)
    }

    /// A number from a double; integral values are written without a fraction.
    public init(_ value: Double) {
        if value.rounded() == value, abs(value) < 1e15 {
            self.literal = String(Int64(value))
        } else {
            self.literal = String(value)
        }
    }

    /// The value as a double (every JSON number has one, possibly rounded or infinite).
    public var doubleValue: Double { Double(literal) ?? .nan }

    /// The value as an integer when the number is integral and fits, else `nil`; `1.0` and `1e2` count as integral.
    public var intValue: Int? {
        if let exact = Int(literal) { return exact }
        let double = doubleValue
        guard double.isFinite, double.rounded() == double, abs(double) < 9e15 else { return nil }
        return Int(double)
    }

    public var description: String { literal }
}
