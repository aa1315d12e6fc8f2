/// Who may read `/metrics`: what it says (queue depth, reasons APNs refused, routes called) is for the operator, not
/// for whoever reaches the API.
package enum MetricsAccess: Sendable, Equatable {
    /// Anyone who reaches the listener: `herald up` on loopback, or `herald serve --public-metrics` where only the
    /// monitoring network reaches the port.
    case open
    /// A bearer token: the scrape token (`--metrics-token-file`, which can read `/metrics` and nothing else), or the
    /// admin token. `herald serve`'s default.
    case token(scrapeToken: String?)

    /// Whether `authorization` (the request's `Authorization` header) may read `/metrics`, the admin token being
    /// `adminToken`. Compared in constant time.
    func allows(authorization: String?, adminToken: String) -> Bool {
        guard case .token(let scrapeToken) = self else { return true }
        guard let authorization, authorization.hasPrefix("Bearer ") else { return false }
        let given = String(authorization.dropFirst("Bearer ".count))
        return KeyMaker.matches(given, adminToken) || scrapeToken.map { KeyMaker.matches(given, $0) } == true
    }
}
