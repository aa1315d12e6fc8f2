import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import ProviderStorage

/// Pause, resume and delete an app (docs/api.md, "An app's lifecycle").
struct AppLifecycleRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let apps: AppOperations

    /// What pausing or resuming answers: the app, and how many deliveries now wait or are due.
    struct Paused: Encodable {
        var app: ProviderApp
        /// Queued deliveries that wait for the app to be resumed (pause), or are due now (resume).
        var deliveries: Int
    }

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("apps/:appID/pause") { request, context -> Response in
            let app = try await self.app(request, context)
            let parked = try await self.apps.pause(app)
            return try JSONCoding.response(Paused(app: try await self.reread(app), deliveries: parked))
        }
        router.post("apps/:appID/resume") { request, context -> Response in
            let app = try await self.app(request, context)
            let woken = try await self.apps.resume(app)
            return try JSONCoding.response(Paused(app: try await self.reread(app), deliveries: woken))
        }
        router.delete("apps/:appID") { request, context -> Response in
            guard case .admin = context.caller else {
                throw ProviderError.forbidden(
                    "deleting an app needs the admin token (an app's own API key cannot delete it); pause it with "
                        + "POST /v1/apps/{id}/pause instead")
            }
            let app = try await self.app(request, context)
            return try JSONCoding.response(try await self.apps.deleteApp(app))
        }
    }

    private func app(_ request: Request, _ context: AuthenticatedRequestContext) async throws -> StoredApp {
        try await context.caller.serverApp(
            request, store: store, pathAppID: try context.parameters.decoded("appID"), needs: .apps)
    }

    private func reread(_ app: StoredApp) async throws(ProviderError) -> ProviderApp {
        guard let current = try await store.app(id: app.app.id) else {
            throw .notFound("app \(app.app.id) was deleted meanwhile")
        }
        return current.app
    }
}
