/// Why the provider refused a request or could not do its work. Each case maps to an HTTP status in the API and
/// names what was wrong.
package enum ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request is malformed or breaks a rule (400); `field` names the JSON field when there is one.
    case invalid(field: String?, message: String)
    /// No credentials, or credentials that are not valid (401).
    case unauthorized(String)
    /// Valid credentials that may not do this (403).
    case forbidden(String)
    /// What the path names does not exist (404).
    case notFound(String)
    /// The request conflicts with what is stored (409).
    case conflict(String)
    /// A field is larger than the provider keeps (413).
    case tooLarge(field: String, String)
    /// The provider is misconfigured (a bad master key, an unreadable file).
    case configuration(String)
    /// The database failed.
    case storage(String)
    /// APNs did not answer, or answered with a server error (502).
    case upstream(String)

    package var description: String {
        switch self {
        case .invalid(let field?, let message): "\(field): \(message)"
        case .tooLarge(let field, let message): "\(field): \(message)"
        case .invalid(nil, let message), .unauthorized(let message), .forbidden(let message),
            .notFound(let message), .conflict(let message), .configuration(let message), .storage(let message),
            .upstream(let message):
            message
        }
    }

    /// Shorthand for a broken rule on one field.
    static func field(_ field: String, _ message: String) -> ProviderError {
        .invalid(field: field, message: message)
    }
}
