import Hummingbird
import Logging
import ProviderStorage
import Synchronization

extension PushProviderService {
    /// Every route of the API; docs/api.md and docs/openapi.json describe them.
    func makeRouter(plugins: [any ProviderPlugin]) -> Router<ProviderRequestContext> {
        let router = Router(context: ProviderRequestContext.self)
        router.add(
            middleware: ProviderErrorMiddleware(
                refused: { error, request in self.recordRefusal(error, request) },
                failed: { error, request in self.recordFailure(error, request) }))
        OperationsRoutes(provider: self).addRoutes(to: router)
        // Every /v1 route has a caller: resolved once, here, before the route runs, and never optional in its context.
        let api = router.group("v1").add(middleware: CallerMiddleware(provider: self))
            .group(context: AuthenticatedRequestContext.self)
        let resources: [any ProviderRouteCollection] = [
            ActivityRoutes(provider: self),
            AppCheckRoutes(provider: self),
            AppLifecycleRoutes(provider: self),
            AppRoutes(provider: self),
            CategoryRoutes(provider: self),
            ChannelRoutes(provider: self),
            DeviceRoutes(provider: self),
            FeedbackRoutes(provider: self),
            NotificationLifecycleRoutes(provider: self),
            NotificationRoutes(provider: self),
            UserRoutes(provider: self),
            VerdictRoutes(provider: self),
            WidgetRoutes(provider: self),
        ]
        for resource in resources { resource.addRoutes(to: api) }
        for plugin in plugins { plugin.addRoutes(to: router, provider: self) }
        return router
    }

    /// Logs a request refused for its credentials, with what it asked and why, and counts it in `/metrics`.
    func recordRefusal(_ error: ProviderError, _ request: Request) {
        let status = APIError(error: error).status.code
        metrics.refused(status: status)
        logger.notice(
            "refused",
            metadata: [
                "status": "\(status)", "method": "\(request.method)", "path": "\(request.uri.path)",
                "why": "\(error.description)",
            ])
    }

    /// Logs what the provider's own failure was (the answer says only that it failed).
    func recordFailure(_ error: ProviderError, _ request: Request) {
        logger.error(
            "request failed",
            metadata: [
                "status": "\(APIError(error: error).status.code)", "method": "\(request.method)",
                "path": "\(request.uri.path)", "why": "\(error.description)",
            ])
    }

    /// The caller of a request (``CallerMiddleware`` asks once per `/v1` request).
    func caller(_ request: Request) async throws(ProviderError) -> Caller {
        try await Caller.resolve(request, store: store, adminToken: adminToken, plugins: plugins.withLock { $0 })
    }
}
