import Foundation
import HTTPTypes
import HeraldSupport
import Hummingbird
import ProviderStorage

/// Applies ``PublicLimits`` to every `/v1` request made with a publishable key, after ``CallerMiddleware`` has said
/// who is calling: a request past a limit is answered `429` before its route reads anything.
struct PublicLimitMiddleware: RouterMiddleware {
    let provider: PushProviderService
    let buckets: PublicLimitBuckets

    func handle(
        _ request: Request, context: ProviderRequestContext,
        next: (Request, ProviderRequestContext) async throws -> Response
    ) async throws -> Response {
        guard case .device(let app)? = context.caller else { return try await next(request, context) }
        let path = request.uri.path.drop { $0 == "/" }.dropFirst("v1/".count)
        let kind = PublicLimits.Kind(method: request.method.rawValue, path: path)
        let address = provider.clientAddress(of: request, context: context)
        if let refusal = buckets.refusal(kind, address: address, appID: app.app.id) {
            provider.metrics.publicRefused(limit: refusal.limit)
            throw refusal.error
        }
        return try await next(request, context)
    }
}

/// The buckets behind ``PublicLimits``, one set per provider.
final class PublicLimitBuckets: Sendable {
    private let registrationsPerAddress: TokenBuckets
    private let registrationsPerApp: TokenBuckets
    private let reportsPerAddress: TokenBuckets
    private let readsPerAddress: TokenBuckets
    /// The time buckets fill on: monotonic, whatever the wall clock does.
    private let start = ContinuousClock.now

    init(_ limits: PublicLimits) {
        registrationsPerAddress = TokenBuckets(limits.registrationsPerAddress)
        registrationsPerApp = TokenBuckets(limits.registrationsPerApp)
        reportsPerAddress = TokenBuckets(limits.reportsPerAddress)
        readsPerAddress = TokenBuckets(limits.readsPerAddress)
    }

    /// The limit a request of `kind` from `address` for app `appID` is past, and the error that says so; `nil`
    /// when it is within every limit (its tokens are taken then).
    func refusal(_ kind: PublicLimits.Kind, address: String, appID: String) -> (limit: String, error: ProviderError)? {
        let now = (ContinuousClock.now - start) / .seconds(1)
        let checks: [(TokenBuckets, String, String, String)]
        switch kind {
        case .registration:
            checks = [
                (registrationsPerAddress, address, "registrations per address", "--public-registrations-per-address"),
                (registrationsPerApp, appID, "registrations per app", "--public-registrations-per-app"),
            ]
        case .report:
            checks = [(reportsPerAddress, address, "receipts per address", "--public-reports-per-address")]
        case .read:
            checks = [(readsPerAddress, address, "reads per address", "--public-reads-per-address")]
        }
        for (buckets, key, name, option) in checks {
            guard let wait = buckets.take(key, now: now) else { continue }
            let seconds = Int(wait.rounded(.up))
            return (
                name,
                .tooManyRequests(
                    "too many requests with the publishable key: the limit of \(name) is \(buckets.limit); try again "
                        + "in \(max(1, seconds)) s (Retry-After). A real app's phones stay far below it; the "
                        + "provider's operator sets it with \(option)", retryAfter: seconds)
            )
        }
        return nil
    }
}
