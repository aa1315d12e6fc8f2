import CategoryConfig
import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import NIOCore
import NIOFoundationCompat
import ProviderStorage

struct CategoryRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let apps: AppOperations

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        // What devices fetch at launch: the app's categories in NotificationConfig form, with an ETag.
        router.get("categories") { request, context -> Response in
            let caller = try await context.caller.anyApp(request, store: self.store, needs: .read)
            // A publishable key's app may be up to a second old (``PublishableKeyCache``): the categories are read as
            // they are now, so a device told they changed never fetches the old ones.
            guard let app = try await self.store.app(id: caller.app.id) else {
                throw ProviderError.notFound("app \(caller.app.id) was deleted")
            }
            return try Self.categoriesResponse(app, request: request)
        }
        router.get("apps/:appID/categories") { request, context -> Response in
            let app = try await context.caller.serverApp(
                request, store: self.store, pathAppID: try context.parameters.decoded("appID"), needs: .read)
            return try Self.categoriesResponse(app, request: request)
        }
        router.put("apps/:appID/categories") { request, context -> Response in
            let app = try await context.caller.serverApp(
                request, store: self.store, pathAppID: try context.parameters.decoded("appID"), needs: .apps)
            let body = try await JSONCoding.body(of: request, limit: 1 << 20)
            return try Self.categoriesResponse(
                try await self.apps.setCategories(of: app, notificationConfig: body), request: nil)
        }
    }

    /// Whether `If-None-Match` (its field lines: lists of entity tags, or `*`) matches `etag` by the weak comparison
    /// RFC 9110 asks of it (section 13.1.2): `W/"x"` matches `"x"`, and `*` matches any current representation.
    static func matches(_ lines: [String], etag: String) -> Bool {
        lines.flatMap { $0.split(separator: ",") }.contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == etag
        }
    }

    private static func categoriesResponse(_ app: StoredApp, request: Request?) throws -> Response {
        let etag = "\"\(app.app.id)-\(app.categoriesVersion)\""
        if let request, Self.matches(request.headers[values: .ifNoneMatch], etag: etag) {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        let body =
            app.categories == Data("{}".utf8)
            ? NotificationConfig(categories: [:], actions: [:]).encoded() : app.categories
        return Response(
            status: .ok, headers: [.contentType: "application/json", .eTag: etag, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
