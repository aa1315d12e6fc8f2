/// Why the provider refused a request or could not do its work: a code (which decides the HTTP status), the field it
/// is about, the message the caller is told, and, for a failure of the provider's own, the cause only its log gets.
package struct ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal or failure, as the API names it (`{"error": {"code": ...}}`).
    package enum Code: String, Sendable, Equatable {
        /// The request is malformed or breaks a rule (400).
        case invalid
        /// No credentials, or credentials that are not valid (401).
        case unauthorized
        /// Valid credentials that may not do this (403).
        case forbidden
        /// What the path names does not exist (404).
        case notFound = "not_found"
        /// The request conflicts with what is stored (409).
        case conflict
        /// What the path names existed, and its record was pruned (retention) (410).
        case gone
        /// A field is larger than the provider keeps (413).
        case tooLarge = "too_large"
        /// A limit on how often something may be done was reached (429, with `Retry-After`).
        case tooManyRequests = "too_many_requests"
        /// The provider is misconfigured (a bad master key, an unreadable file) (500).
        case configuration
        /// The database failed or did not answer (503).
        case storage
        /// APNs did not answer, or answered with a server error (502).
        case upstream
    }

    package let code: Code
    /// The JSON field the error is about, by path (`content.badge`), when there is one.
    package let field: String?
    /// What the caller is told: what was wrong and how to fix it.
    package let message: String
    /// What only the provider's log gets (a database's error text, a path); never part of an answer.
    package let cause: String?
    /// For ``Code/tooManyRequests``: the seconds until the caller may try again (`Retry-After`).
    package private(set) var retryAfter: Int?

    private init(_ code: Code, field: String? = nil, message: String, cause: String? = nil) {
        self.code = code
        self.field = field
        self.message = message
        self.cause = cause
    }

    /// The error as a log line: the field, the message and the cause.
    package var description: String {
        let text = field.map { "\($0): \(message)" } ?? message
        return cause.map { "\(text) (\($0))" } ?? text
    }

    /// The request is malformed or breaks a rule; `field` names the JSON field when there is one.
    package static func invalid(field: String?, message: String) -> ProviderError {
        ProviderError(.invalid, field: field, message: message)
    }

    /// Shorthand for a broken rule on one field.
    package static func field(_ field: String, _ message: String) -> ProviderError {
        .invalid(field: field, message: message)
    }

    /// No credentials, or credentials that are not valid.
    package static func unauthorized(_ message: String) -> ProviderError {
        ProviderError(.unauthorized, message: message)
    }

    /// Valid credentials that may not do this.
    package static func forbidden(_ message: String) -> ProviderError { ProviderError(.forbidden, message: message) }

    /// What the path names does not exist.
    package static func notFound(_ message: String) -> ProviderError { ProviderError(.notFound, message: message) }

    /// The request conflicts with what is stored.
    package static func conflict(_ message: String) -> ProviderError { ProviderError(.conflict, message: message) }

    /// What the path names was pruned (410).
    package static func gone(_ message: String) -> ProviderError { ProviderError(.gone, message: message) }

    /// A field is larger than the provider keeps.
    package static func tooLarge(field: String, _ message: String) -> ProviderError {
        ProviderError(.tooLarge, field: field, message: message)
    }

    /// A limit on how often something may be done was reached: `message` names the limit (and the option that
    /// sets it); the caller may try again after `retryAfter` seconds.
    package static func tooManyRequests(_ message: String, retryAfter: Int) -> ProviderError {
        var error = ProviderError(.tooManyRequests, message: message)
        error.retryAfter = max(1, retryAfter)
        return error
    }

    /// APNs did not answer, or answered with a server error.
    package static func upstream(_ message: String) -> ProviderError { ProviderError(.upstream, message: message) }

    /// The provider is misconfigured: `cause` says how, in its log; the caller is told only that it is.
    package static func configuration(_ cause: String) -> ProviderError {
        ProviderError(.configuration, message: "the provider is misconfigured; its log says what failed", cause: cause)
    }

    /// The database failed or did not answer: `cause` (its error) goes to the log; the caller is told to try again.
    package static func storage(_ cause: String) -> ProviderError {
        ProviderError(
            .storage,
            message: "the provider's database failed or did not answer; try again in \(storageRetryAfter) seconds "
                + "(Retry-After); the provider's log says what failed", cause: cause)
    }

    /// The seconds a client is asked to wait (`Retry-After`) after a `503` for a database that failed.
    package static let storageRetryAfter = 2
}
