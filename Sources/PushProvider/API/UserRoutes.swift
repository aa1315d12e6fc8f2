import Foundation
import HeraldTime
import Hummingbird
import ProviderStorage

/// What the app's server says about its users: a user token that binds a device to a user, and a user's attributes
/// (`PUT`/`GET`/`DELETE /v1/users/{id}/attributes`), which notifications' variables read for each of the user's
/// devices.
struct UserRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let secrets: SecretBox

    private struct IssuedUserToken: Encodable {
        var userID: String
        var userToken: String
        var expiresAt: Date
    }

    /// The body of `PUT /v1/users/{id}/attributes`: the whole map, which replaces the user's.
    struct AttributesInput: StrictInput, Sendable {
        var attributes: [String: String]

        enum CodingKeys: String, CodingKey, CaseIterable { case attributes }
        static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    }

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        // The app's server vouches for a signed-in user (`?ttl=SECONDS`, 30 days by default): the token lets the
        // app bind its device to that user with the publishable key (UserToken).
        router.post("users/:userID/token") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let userID = try Self.userID(context)
            let ttlText = request.uri.queryParameters.get("ttl")
            let ttl = ttlText.map { Int($0) ?? -1 } ?? UserToken.defaultLifetime
            guard (60...UserToken.maximumLifetime).contains(ttl) else {
                throw ProviderError.field("ttl", "a user token lives 60 to \(UserToken.maximumLifetime) seconds")
            }
            let expires = self.now().addingTimeInterval(TimeInterval(ttl))
            let token = UserToken.make(
                appID: app.app.id, userID: userID, expires: expires, secrets: self.secrets)
            return try JSONCoding.response(
                IssuedUserToken(userID: userID, userToken: token, expiresAt: expires), status: .created)
        }
        router.put("users/:userID/attributes") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let userID = try Self.userID(context)
            let input = try JSONCoding.decode(
                AttributesInput.self, from: try await JSONCoding.body(of: request, limit: 1 << 14))
            try DeviceAttributes.check(input.attributes, of: "a user")
            try await self.store.setUserAttributes(
                appID: app.app.id, userID: userID, attributes: input.attributes, at: self.now())
            return try JSONCoding.response(try await self.store.userAttributes(appID: app.app.id, userID: userID))
        }
        router.get("users/:userID/attributes") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .read)
            let userID = try Self.userID(context)
            return try JSONCoding.response(try await self.store.userAttributes(appID: app.app.id, userID: userID))
        }
        router.delete("users/:userID/attributes") { request, context -> HTTPResponse.Status in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let userID = try Self.userID(context)
            try await self.store.setUserAttributes(appID: app.app.id, userID: userID, attributes: [:], at: self.now())
            return .noContent
        }
    }

    /// The user ID of the path: 1 to 256 characters, without U+0000 (stored as text, which would cut or refuse it).
    private static func userID(_ context: AuthenticatedRequestContext) throws -> String {
        let userID = try context.parameters.decoded("userID")
        guard !userID.isEmpty, userID.count <= 256 else {
            throw ProviderError.field("userID", "a user ID is 1 to 256 characters")
        }
        try ProviderError.refuseNUL(userID, field: "userID")
        return userID
    }
}
