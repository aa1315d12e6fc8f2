import HTTPTypes
import HeraldSupport
package import Hummingbird
import Logging
import ProviderStorage
import Synchronization

extension PushProviderService {
    /// Every route of the API; docs/api.md and docs/openapi.json describe them.
    func makeRouter(plugins: [any ProviderPlugin]) -> Router<ProviderRequestContext> {
        let router = Router(context: ProviderRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        // Outside the error middleware, so the lines it logs carry the request's trace.
        if let tracer = configuration.tracer { router.add(middleware: RequestTracingMiddleware(tracer: tracer)) }
        router.add(
            middleware: ProviderErrorMiddleware(
                refused: { error, request in self.recordRefusal(error, request) },
                failed: { error, request in self.recordFailure(error, request) }))
        OperationsRoutes(
            store: store, reachability: engine.reachability, metrics: metrics,
            exposition: { await self.metricsExposition() }, caller: { request in try? await self.caller(request) },
            metricsAccess: configuration.metricsAccess, adminToken: adminToken
        ).addRoutes(to: router)
        // Every /v1 route has a caller: resolved once, here, before the route runs, and never optional in its context.
        let api = router.group("v1")
            .add(middleware: PublicLimitMiddleware(provider: self, buckets: publicLimits, stage: .address))
            .add(middleware: CallerMiddleware(provider: self))
            .add(middleware: AuditMiddleware(provider: self))
            .add(middleware: PublicLimitMiddleware(provider: self, buckets: publicLimits, stage: .app))
            .group(context: AuthenticatedRequestContext.self)
        // Each resource gets what its routes use.
        let clock = configuration.clock
        let resources: [any ProviderRouteCollection] = [
            ActivityRoutes(store: store, clock: clock, secrets: secrets),
            APIKeyRoutes(store: store, clock: clock),
            AppCheckRoutes(store: store, clock: clock, clients: clients, metrics: metrics),
            AppLifecycleRoutes(store: store, clock: clock, apps: apps),
            AppRoutes(store: store, clock: clock, apps: apps),
            AuditRoutes(store: store, clock: clock),
            CategoryRoutes(store: store, clock: clock, apps: apps),
            ChannelRoutes(store: store, clock: clock, secrets: secrets, logger: logger),
            DeviceRoutes(store: store, clock: clock, secrets: secrets, changes: changes),
            FeedbackRoutes(
                store: store, clock: clock, receipts: receipts, changes: changes, webhooks: webhooks, metrics: metrics,
                tracer: configuration.tracer),
            NotificationLifecycleRoutes(store: store, clock: clock, notifications: notifications),
            NotificationRoutes(
                store: store, clock: clock, notifications: notifications, retention: configuration.retention),
            UserRoutes(store: store, clock: clock, secrets: secrets),
            VerdictRoutes(store: store, clock: clock),
            WebhookRoutes(
                store: store, clock: clock, secrets: secrets, overlap: webhooks.settings.rotationOverlap),
            WidgetRoutes(store: store, clock: clock, secrets: secrets),
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

    /// The address of the client that made `request`: the socket's, or with ``Configuration/trustedProxies`` the one
    /// the nearest trusted proxy names in `X-Forwarded-For`. Per-address limits count by it.
    package func clientAddress(of request: Request, context: ProviderRequestContext) -> String {
        configuration.trustedProxies.client(
            socketAddress: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor])
    }

    /// The caller of a request (``CallerMiddleware`` asks once per `/v1` request).
    func caller(_ request: Request) async throws(ProviderError) -> Caller {
        try await Caller.resolve(
            request, store: store, adminToken: adminToken, plugins: plugins.withLock { $0 },
            publishableKeys: publishableKeys)
    }
}
