import Foundation
import HTTPTypes
import HeraldSupport
import HeraldTime
import Hummingbird
import ProviderStorage

/// An app's API keys: `POST /v1/apps/{id}/keys` (optionally restricted to scopes, ``APIKeyScope``), `GET` lists
/// them (never the keys), `DELETE /v1/apps/{id}/keys/{keyID}` revokes one. Managing keys needs the admin token or a
/// key with every scope.
struct APIKeyRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock

    /// The body of `POST /v1/apps/{id}/keys`: none, or the scopes the key is restricted to.
    struct KeyInput: StrictInput, Sendable {
        var scopes: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable { case scopes }
        static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    }

    /// A key as listed and as made (the key itself only when made, once; only its hash is kept).
    struct KeyBody: Encodable {
        var id: String
        var apiKey: String?
        /// Its scopes; every scope for a key made without.
        var scopes: [String]
        /// Whether it was made with scopes.
        var restricted: Bool
        var createdAt: Date

        init(_ record: APIKeyRecord, apiKey: String? = nil) {
            id = record.id
            self.apiKey = apiKey
            scopes = APIKeyScope.granted(record.scopes).sorted().map(\.rawValue)
            restricted = record.scopes != nil
            createdAt = record.createdAt
        }
    }

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("apps/:appID/keys") { request, context -> Response in
            let app = try await self.keysApp(request, context)
            let body = try await JSONCoding.body(of: request, limit: 1 << 12)
            let input = body.isEmpty ? KeyInput() : try JSONCoding.decode(KeyInput.self, from: body)
            let scopes = try input.scopes.map { names throws(ProviderError) in
                try APIKeyScope.parse(names).map(\.rawValue)
            }
            let key = KeyMaker.make(prefix: "sk_")
            let record = APIKeyRecord(
                id: "key_" + UUID().uuidString.prefix(8).lowercased(), scopes: scopes, createdAt: self.now())
            try await self.store.insertAPIKey(
                appID: app.app.id, id: record.id, hash: KeyMaker.hash(key), scopes: scopes, at: record.createdAt)
            return try JSONCoding.response(KeyBody(record, apiKey: key), status: .created)
        }
        router.get("apps/:appID/keys") { request, context -> Response in
            let app = try await self.keysApp(request, context)
            return try JSONCoding.response(try await self.store.apiKeys(appID: app.app.id).map { KeyBody($0) })
        }
        router.delete("apps/:appID/keys/:keyID") { request, context -> HTTPResponse.Status in
            let app = try await self.keysApp(request, context)
            let keyID = try context.parameters.decoded("keyID")
            guard try await self.store.deleteAPIKey(appID: app.app.id, id: keyID) else {
                throw ProviderError.notFound("app \(app.app.id) has no API key \(keyID)")
            }
            return .noContent
        }
    }

    /// The app whose keys the caller manages: the admin's, or an unrestricted key's own.
    private func keysApp(_ request: Request, _ context: AuthenticatedRequestContext) async throws -> StoredApp {
        try context.caller.mayManageKeys()
        return try await context.caller.serverApp(
            request, store: store, pathAppID: try context.parameters.decoded("appID"), needs: .apps)
    }
}
