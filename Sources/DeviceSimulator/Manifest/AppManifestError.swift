/// A manifest that cannot be read: which field is missing or wrong, and why.
public struct AppManifestError: Error, Sendable, CustomStringConvertible {
    public let message: String

    init(_ error: any Error) {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            message = "\(Self.path(context.codingPath + [key])) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            message = "\(Self.path(context.codingPath)): \(context.debugDescription)"
        default:
            message = "\(error)"
        }
    }

    public var description: String { message }

    private static func path(_ keys: [any CodingKey]) -> String {
        guard !keys.isEmpty else { return "the manifest" }
        var path = ""
        for key in keys {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += (path.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return path
    }
}
