package import Hummingbird
package import NIOCore
import ProviderStorage

/// The provider's request context (the API's and the console's): Hummingbird's basic one, plus the address the
/// request came from, which per-address limits (the console's failed sign-ins) are counted by, and who is calling,
/// which ``CallerMiddleware`` sets once for every `/v1` route (whose routes read it from
/// ``AuthenticatedRequestContext``).
package struct ProviderRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The client's address; `nil` when the connection has none (a Unix socket) or it could not be read.
    package let remoteAddress: SocketAddress?
    /// Who is calling: set by ``CallerMiddleware`` before a `/v1` route runs.
    var caller: Caller?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// The context of every `/v1` route: the provider's, with the caller ``CallerMiddleware`` resolved, never missing.
struct AuthenticatedRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    /// Who is calling.
    let caller: Caller

    /// The context of a request ``CallerMiddleware`` let through.
    ///
    /// - Throws: ``ProviderError/unauthorized(_:)`` when no caller was resolved (a route added outside the group
    ///   the middleware guards).
    init(context: ProviderRequestContext) throws {
        guard let caller = context.caller else {
            throw ProviderError.unauthorized("this route takes no key; it is not one of the API's /v1 routes")
        }
        // The parent's storage whole: its path parameters, logger and endpoint were set before this context is made.
        coreContext = context.coreContext
        self.caller = caller
    }
}

/// Resolves who is calling (``Caller``) once per `/v1` request, before the route runs: a request without a valid
/// key is answered `401` here, and every route reads the caller from its context.
struct CallerMiddleware: RouterMiddleware {
    let provider: PushProviderService

    func handle(
        _ request: Request, context: ProviderRequestContext,
        next: (Request, ProviderRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.caller = try await provider.caller(request)
        return try await next(request, context)
    }
}
