import Foundation
import HTTPTypes
import Hummingbird
import ProviderStorage

/// Who is calling, from `Authorization: Bearer KEY` (or `X-Herald-Key`, or `?key=` for device URLs).
enum Caller: Sendable {
    /// The admin token: every app.
    case admin
    /// An app's secret API key (`sk_...`): its server-side endpoints, those its scopes allow.
    case server(StoredApp, key: APIKeyRecord)
    /// An app's publishable key (`pk_...`): what a device may call.
    case device(StoredApp)

    /// The key `request` presents: `Authorization: Bearer KEY`, `X-Herald-Key`, or `?key=`; `nil` for none.
    static func presentedKey(_ request: Request) -> String? {
        let bearer = request.headers[.authorization].flatMap { value -> String? in
            // The scheme is case-insensitive (RFC 9110): compared byte by byte, nothing allocated (every request).
            let scheme = value.utf8.prefix(7)
            guard scheme.count == 7, scheme.last == UInt8(ascii: " "),
                zip(scheme.prefix(6), "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 })
            else { return nil }
            return String(value.utf8.dropFirst(7))
        }
        return bearer ?? request.headers[.heraldKey] ?? request.uri.queryParameters.get("key")
    }

    /// Resolves the caller of `request`.
    ///
    /// - Throws: ``ProviderError/unauthorized(_:)`` when no key is given or it is unknown.
    static func resolve(
        _ request: Request, store: any ProviderStore, adminToken: String, plugins: [any ProviderPlugin] = [],
        publishableKeys: PublishableKeyCache
    ) async throws(ProviderError) -> Caller {
        var key = presentedKey(request)
        for plugin in plugins where key == nil {
            key = try await plugin.sessionKey(for: request)
        }
        guard let key, !key.isEmpty else {
            throw .unauthorized("send a key: Authorization: Bearer <admin token, sk_ API key or pk_ publishable key>")
        }
        if KeyMaker.matches(key, adminToken) { return .admin }
        if key.hasPrefix("pk_"), let app = try await publishableKeys.app(key, store: store) { return .device(app) }
        if key.hasPrefix("sk_"), let found = try await store.app(apiKeyHash: KeyMaker.hash(key)) {
            return .server(found.app, key: found.key)
        }
        throw .unauthorized("the key is not valid; check it or create a new API key")
    }

    /// The app a server-side call that `needs` a scope acts on: the key's app, or for the admin the `app` query
    /// parameter.
    ///
    /// - Throws: ``ProviderError`` when a publishable key is used, an API key lacks the scope, or the admin names no
    ///   app.
    func serverApp(_ request: Request, store: any ProviderStore, pathAppID: String? = nil, needs scope: APIKeyScope)
        async throws(ProviderError) -> StoredApp
    {
        switch self {
        case .admin:
            guard let id = pathAppID ?? request.uri.queryParameters.get("app") else {
                throw .invalid(field: "app", message: "with the admin token, say which app: ?app=<app id>")
            }
            guard let app = try await store.app(id: id) else { throw .notFound("no app with id \(id)") }
            return app
        case .server(let app, let key):
            try Self.check(key, has: scope)
            if let named = pathAppID ?? request.uri.queryParameters.get("app").map({ String($0) }), named != app.app.id
            {
                throw .forbidden("this API key belongs to app \(app.app.id), not \(named)")
            }
            return app
        case .device:
            throw .forbidden("a publishable key may only register devices, read categories and send feedback")
        }
    }

    /// Whether the caller holds the admin token.
    var isAdmin: Bool {
        if case .admin = self { return true }
        return false
    }

    /// The app a device-side call acts on: any of the app's keys (an API key with the scope the call `needs`).
    func anyApp(_ request: Request, store: any ProviderStore, needs scope: APIKeyScope) async throws(ProviderError)
        -> StoredApp
    {
        if case .device(let app) = self { return app }
        return try await serverApp(request, store: store, needs: scope)
    }

    /// Whether the caller may manage the app's API keys: the admin token, or an API key with every scope (a restricted
    /// key could otherwise make itself an unrestricted one).
    func mayManageKeys() throws(ProviderError) {
        guard case .server(_, let key) = self, key.scopes != nil else { return }
        throw .forbidden(
            "this API key (\(key.id)) is restricted to \(key.scopes?.joined(separator: ", ") ?? ""); making and "
                + "deleting API keys needs a key with every scope or the admin token")
    }

    /// - Throws: ``ProviderError/forbidden(_:)`` naming `scope` when `key` was not made with it.
    private static func check(_ key: APIKeyRecord, has scope: APIKeyScope) throws(ProviderError) {
        guard !APIKeyScope.granted(key.scopes).contains(scope) else { return }
        throw .forbidden(
            "this API key (\(key.id)) lacks the scope \"\(scope.rawValue)\" this route needs; its scopes: "
                + "\(key.scopes?.joined(separator: ", ") ?? "")). Use a key with it, or make one: POST "
                + "/v1/apps/{id}/keys {\"scopes\": [\"\(scope.rawValue)\"]}")
    }
}

extension HTTPField.Name {
    /// `X-Herald-Key`: a key given in a header of its own instead of `Authorization`.
    static let heraldKey = Self("X-Herald-Key")!
}
