/// One problem found in a notification: an error APNs would reject it for, or a warning about something iOS would
/// silently mishandle.
public struct APNSDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// How serious a problem is.
    public enum Severity: String, Hashable, Sendable, Codable {
        /// APNs rejects the request.
        case error
        /// APNs accepts the request, but iOS ignores or mishandles part of it.
        case warning
    }

    /// Error or warning.
    public var severity: Severity
    /// For errors, the reason APNs answers with.
    public var reason: APNSReason?
    /// A stable identifier of the rule, for example `badge-not-a-number`.
    public var rule: String
    /// Where the problem is: a key path in the payload (`aps.badge`) or a header name (`apns-priority`).
    public var location: String?
    /// What is wrong and what to do, for a person.
    public var message: String

    /// An error APNs would answer with `reason`.
    public static func error(
        _ reason: APNSReason,
        rule: String,
        at location: String? = nil,
        _ message: String
    ) -> APNSDiagnostic {
        APNSDiagnostic(severity: .error, reason: reason, rule: rule, location: location, message: message)
    }

    /// A warning about something iOS would mishandle.
    public static func warning(rule: String, at location: String? = nil, _ message: String) -> APNSDiagnostic {
        APNSDiagnostic(severity: .warning, reason: nil, rule: rule, location: location, message: message)
    }

    /// The HTTP status APNs answers an error with.
    public var status: Int? { reason.map { $0.status ?? 400 } }

    public var description: String {
        let place = location.map { "\($0): " } ?? ""
        let tag = reason.map { " [\(status ?? 400) \($0)]" } ?? ""
        return "\(severity.rawValue): \(place)\(message)\(tag)"
    }
}
