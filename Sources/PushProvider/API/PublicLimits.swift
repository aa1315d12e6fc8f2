package import HeraldSupport

/// How often the publishable key may be used: it ships inside every copy of the app, so anyone can read it out and
/// call the routes it opens (registrations, receipts, categories). Each limit is a token bucket per client address
/// (``TrustedProxies`` decides which address that is), and registrations also per app; a request past one is answered
/// `429` with `Retry-After` and the limit's name. The defaults are far above what a real app's phones do (a phone
/// registers a few times a day and reports a few receipts per push) and are met by a flood at once. The admin token and
/// API keys are never limited here.
package struct PublicLimits: Sendable, Equatable {
    /// Registrations (devices, user tokens, Live Activity and widget tokens, and their removal) from one address
    /// (`--public-registrations-per-address`).
    package var registrationsPerAddress = TokenBuckets.Limit(perMinute: 600)
    /// Registrations for one app from every address together (`--public-registrations-per-app`).
    package var registrationsPerApp = TokenBuckets.Limit(perMinute: 120_000)
    /// Receipts (`POST /v1/feedback`) from one address (`--public-reports-per-address`).
    package var reportsPerAddress = TokenBuckets.Limit(perMinute: 120_000, burst: 20_000)
    /// Everything else the publishable key may ask (categories) from one address (`--public-reads-per-address`).
    package var readsPerAddress = TokenBuckets.Limit(perMinute: 1_200)

    package init() {}

    /// What a publishable-key request is, for its limits.
    enum Kind: String, Sendable {
        case registration, report, read

        /// The kind of `method` on `path` (below `/v1/`).
        init(method: String, path: Substring) {
            switch method {
            case "GET", "HEAD": self = .read
            case "POST" where path == "feedback": self = .report
            default: self = .registration
            }
        }
    }
}
