import Foundation
import HeraldTime
import Hummingbird
import ProviderStorage

struct UserRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let secrets: SecretBox

    private struct IssuedUserToken: Encodable {
        var userID: String
        var userToken: String
        var expiresAt: Date
    }

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        // The app's server vouches for a signed-in user (`?ttl=SECONDS`, 30 days by default): the token lets the
        // app bind its device to that user with the publishable key (UserToken).
        router.post("users/:userID/token") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let userID = try context.parameters.decoded("userID")
            guard !userID.isEmpty, userID.count <= 256 else {
                throw ProviderError.field("userID", "a user ID is 1 to 256 characters")
            }
            // The user a device is bound to is stored as text: U+0000 would be cut or refused by the database.
            try ProviderError.refuseNUL(userID, field: "userID")
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
    }
}
