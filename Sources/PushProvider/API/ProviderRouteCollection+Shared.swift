import Foundation
import Hummingbird
import ProviderStorage

/// What routes of more than one resource do: find the caller's notification (notifications, verdicts).
extension ProviderRouteCollection {
    /// The notification the path's `id` names, when it belongs to the caller's app and the caller has `scope`.
    ///
    /// - Throws: ``ProviderError`` when the caller may not read the app, or the app has no such notification.
    func callersNotification(
        _ request: Request, _ context: AuthenticatedRequestContext, needs scope: APIKeyScope = .read
    ) async throws -> StoredNotification {
        let app = try await context.caller.serverApp(request, store: store, needs: scope)
        let id = try context.parameters.decoded("id")
        guard let notification = try await store.notification(id: id), notification.appID == app.app.id else {
            throw ProviderError.notFound("app \(app.app.id) has no notification \(id)")
        }
        return notification
    }
}

/// What the routes of a user's tokens share: delete a token a user owns (activities, widgets), check a user's proof.
extension UserProofRoutes {
    /// Deletes one of the app's tokens of `kinds`; a publishable-key caller proves it acts for the token's user.
    ///
    /// - Throws: ``ProviderError/notFound(_:)`` naming `what` when the app has no such token of those kinds.
    func deleteToken(
        _ token: String, of app: StoredApp, caller: Caller, kinds: [String], what: String, request: Request
    ) async throws(ProviderError) {
        let existing = try await store.activityTokens(
            ActivityTokenQuery(appID: app.app.id, token: token, kinds: kinds, limit: 1), now: now()
        ).first
        guard let existing else { throw ProviderError.notFound("app \(app.app.id) has no \(what) \(token)") }
        if case .device = caller, let userID = existing.userID {
            try checkUserProof(
                userID: userID, app: app, userToken: request.headers[DeviceRoutes.userTokenHeader],
                change: "deleting a token of user \(userID)")
        }
        guard try await store.deleteActivityToken(appID: app.app.id, token: token) else {
            throw ProviderError.notFound("app \(app.app.id) has no \(what) \(token)")
        }
    }

    /// Checks that a publishable-key caller proved it acts for `userID` with that user's token from the app's server.
    func checkUserProof(userID: String, app: StoredApp, userToken: String?, change: String) throws(ProviderError) {
        guard let userToken else {
            throw .forbidden(
                "\(change) with the publishable key needs a userToken for that user from the app's server "
                    + "(POST /v1/users/{userID}/token with its API key), as X-Herald-User-Token or userToken")
        }
        let proven = try UserToken.user(from: userToken, appID: app.app.id, secrets: secrets, now: now())
        guard proven == userID else { throw .forbidden("the userToken is for user \(proven), not \(userID)") }
    }
}
