import Foundation
import HTTPTypes
import HeraldSupport
import Hummingbird
import ProviderStorage

/// Applies ``PublicLimits`` to every `/v1` request made with a publishable key: the limits per client address before
/// ``CallerMiddleware`` looks the key up (a flood refused costs no database read; a made-up `pk_` key counts too), the
/// limit per app after it. A request past a limit is answered `429` before its route reads anything.
struct PublicLimitMiddleware: RouterMiddleware {
    /// Which of the two checks this instance makes.
    enum Stage: Sendable {
        /// Before the caller is known: the limits per client address, for any `pk_` key.
        case address
        /// After ``CallerMiddleware``: the limit per app.
        case app
    }

    let provider: PushProviderService
    let buckets: PublicLimitBuckets
    let stage: Stage

    func handle(
        _ request: Request, context: ProviderRequestContext,
        next: (Request, ProviderRequestContext) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path.drop { $0 == "/" }.dropFirst("v1/".count)
        let kind = PublicLimits.Kind(method: request.method.rawValue, path: path)
        let refusal: (limit: String, error: ProviderError)?
        switch stage {
        case .address:
            guard Caller.presentedKey(request)?.hasPrefix("pk_") == true else {
                return try await next(request, context)
            }
            refusal = buckets.refusal(kind, address: provider.clientAddress(of: request, context: context))
        case .app:
            guard case .device(let app)? = context.caller else { return try await next(request, context) }
            refusal = buckets.refusal(kind, appID: app.app.id)
        }
        if let refusal {
            provider.metrics.publicRefused(limit: refusal.limit)
            throw refusal.error
        }
        return try await next(request, context)
    }
}

/// The buckets behind ``PublicLimits``, one set per provider. The limits are the service's: with several providers on
/// one database (behind one load balancer), each keeps its share, the limit divided by the providers alive now (their
/// heartbeats), so that N providers together allow what one would, not N times it.
final class PublicLimitBuckets: Sendable {
    private let registrationsPerAddress: TokenBuckets
    private let registrationsPerApp: TokenBuckets
    private let reportsPerAddress: TokenBuckets
    private let readsPerAddress: TokenBuckets
    /// The time buckets fill on: monotonic, whatever the wall clock does.
    private let start = ContinuousClock.now
    /// How many providers share the limits now (1 on SQLite).
    private let providers: @Sendable () -> Int

    init(_ limits: PublicLimits, providers: @escaping @Sendable () -> Int = { 1 }) {
        self.providers = providers
        registrationsPerAddress = TokenBuckets(limits.registrationsPerAddress)
        registrationsPerApp = TokenBuckets(limits.registrationsPerApp)
        reportsPerAddress = TokenBuckets(limits.reportsPerAddress)
        readsPerAddress = TokenBuckets(limits.readsPerAddress)
    }

    /// The limit per client address a request of `kind` from `address` is past, and the error that says so; `nil`
    /// when it is within them (its tokens are taken then).
    func refusal(_ kind: PublicLimits.Kind, address: String) -> (limit: String, error: ProviderError)? {
        switch kind {
        case .registration:
            refusal(
                from: [
                    (
                        registrationsPerAddress, address, "registrations per address",
                        "--public-registrations-per-address"
                    )
                ])
        case .report:
            refusal(from: [(reportsPerAddress, address, "receipts per address", "--public-reports-per-address")])
        case .read:
            refusal(from: [(readsPerAddress, address, "reads per address", "--public-reads-per-address")])
        }
    }

    /// The limit per app a request of `kind` for app `appID` is past (registrations only), as above.
    func refusal(_ kind: PublicLimits.Kind, appID: String) -> (limit: String, error: ProviderError)? {
        guard kind == .registration else { return nil }
        return refusal(
            from: [(registrationsPerApp, appID, "registrations per app", "--public-registrations-per-app")])
    }

    private func refusal(from checks: [(TokenBuckets, String, String, String)])
        -> (limit: String, error: ProviderError)?
    {
        let now = (ContinuousClock.now - start) / .seconds(1)
        let shares = providers()
        for (buckets, key, name, option) in checks {
            guard let wait = buckets.take(key, now: now, shares: shares) else { continue }
            let seconds = Int(wait.rounded(.up))
            let share = shares > 1 ? " across \(shares) providers (each keeps 1/\(shares) of it)" : ""
            return (
                name,
                .tooManyRequests(
                    "too many requests with the publishable key: the limit of \(name) is \(buckets.limit)\(share); "
                        + "try again in \(max(1, seconds)) s (Retry-After). A real app's phones stay far below it; the "
                        + "provider's operator sets it with \(option)", retryAfter: seconds)
            )
        }
        return nil
    }
}
