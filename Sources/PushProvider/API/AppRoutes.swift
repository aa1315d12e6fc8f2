import APNSCore
import Foundation
import HTTPTypes
import HeraldSupport
import HeraldTime
import Hummingbird
import ProviderStorage

struct AppRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let apps: AppOperations

    private struct CreatedApp: Encodable {
        var app: ProviderApp
        /// Shown once; only its hash is kept.
        var apiKey: String
        var apiKeyID: String
    }

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("apps") { request, context -> Response in
            guard case .admin = context.caller else {
                throw ProviderError.forbidden("creating an app needs the admin token")
            }
            let input = try await JSONCoding.decode(AppInput.self, from: request)
            let (app, key, keyID) = try await self.apps.createApp(input)
            return try JSONCoding.response(CreatedApp(app: app, apiKey: key, apiKeyID: keyID), status: .created)
        }
        router.get("apps") { request, context -> Response in
            switch context.caller {
            case .admin: return try JSONCoding.response(try await self.store.apps().map(\.app))
            case .server(let app, let key):
                guard APIKeyScope.granted(key.scopes).contains(.read) else {
                    throw ProviderError.forbidden(
                        "this API key (\(key.id)) lacks the scope \"read\" listing apps needs")
                }
                return try JSONCoding.response([app.app])
            case .device:
                // The publishable key ships inside the app: the webhook URL, endpoint and key IDs are not for it.
                throw ProviderError.forbidden(
                    "a publishable key may only register devices, read categories and send feedback; list apps with "
                        + "the app's API key or the admin token")
            }
        }
        router.get("apps/:appID") { request, context -> Response in
            let app = try await context.caller.serverApp(
                request, store: self.store, pathAppID: try context.parameters.decoded("appID"), needs: .read)
            return try JSONCoding.response(app.app)
        }
        router.patch("apps/:appID") { request, context -> Response in
            let caller = context.caller
            let app = try await caller.serverApp(
                request, store: self.store, pathAppID: try context.parameters.decoded("appID"), needs: .apps)
            let input = try await JSONCoding.decode(AppInput.self, from: request)
            return try JSONCoding.response(try await self.apps.update(app, with: input, byAdmin: caller.isAdmin).app)
        }
    }
}
