package import Hummingbird
package import NIOCore
import ProviderStorage

/// The provider's request context (the API's and the console's): Hummingbird's basic one, plus the address the
/// request came from, which per-address limits (the console's failed sign-ins) are counted by, and who is calling,
/// which ``CallerMiddleware`` sets once for every `/v1` route.
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

extension ProviderRequestContext {
    /// The caller ``CallerMiddleware`` resolved.
    ///
    /// - Throws: ``ProviderError/unauthorized(_:)`` for a route outside `/v1`, which no middleware authenticated.
    func requireCaller() throws(ProviderError) -> Caller {
        guard let caller else { throw .unauthorized("this route takes no key; it is not one of the API's /v1 routes") }
        return caller
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
