/// Why a ``LocalAPNs`` or a ``TestDevice`` could not do what a test asked, in words that say what to change.
public struct HeraldTestingError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
