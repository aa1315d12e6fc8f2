import Hummingbird
import Synchronization

extension PushProviderService {
    /// Every route of the API; docs/api.md and docs/openapi.json describe them.
    func makeRouter(plugins: [any ProviderPlugin]) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: ProviderErrorMiddleware())
        addOperationsRoutes(to: router)
        addAppRoutes(to: router)
        addDeviceRoutes(to: router)
        addUserRoutes(to: router)
        addNotificationRoutes(to: router)
        addFeedbackRoutes(to: router)
        addCategoryRoutes(to: router)
        addActivityRoutes(to: router)
        addChannelRoutes(to: router)
        for plugin in plugins { plugin.addRoutes(to: router, provider: self) }
        return router
    }

    /// The caller of a request.
    func caller(_ request: Request) async throws(ProviderError) -> Caller {
        try await Caller.resolve(request, store: store, adminToken: adminToken, plugins: plugins.withLock { $0 })
    }
}
