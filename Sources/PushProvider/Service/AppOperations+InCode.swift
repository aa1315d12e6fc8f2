package import APNSCore
package import Foundation
package import ProviderStorage

/// What a program embedding the provider (`herald up`, the console's tools) does with apps without going through the
/// API: bring one up to date, set its categories, sign a user token, check a provider token against its key.
extension AppOperations {
    /// Creates the app, or updates the one with the same bundle ID and environment to these settings.
    ///
    /// - Throws: ``ProviderError`` when a setting is not valid.
    package func ensure(_ settings: AppSettings) async throws(ProviderError) -> ProviderApp {
        if let existing = try await store.apps().first(where: {
            $0.app.bundleID == settings.bundleID && $0.app.environment == settings.environment
        }) {
            return try await update(existing, with: settings.input, byAdmin: true).app
        }
        return try await createApp(settings.input).0
    }

    /// Sets an app's categories from `NotificationConfig` JSON, as `PUT /v1/apps/{id}/categories` does.
    ///
    /// - Throws: ``ProviderError`` when there is no such app or the JSON is not a valid `NotificationConfig`.
    package func setCategories(appID: String, notificationConfig json: Data) async throws(ProviderError) {
        guard let app = try await store.app(id: appID) else { throw .notFound("no app with id \(appID)") }
        _ = try await setCategories(of: app, notificationConfig: json)
    }

    /// A user token for `userID` of app `appID`, as `POST /v1/users/{userID}/token` makes one (for `herald up`'s own
    /// device, which signs in as a demo user).
    package func userToken(appID: String, userID: String) -> String {
        UserToken.make(
            appID: appID, userID: userID, expires: now().addingTimeInterval(TimeInterval(UserToken.defaultLifetime)),
            secrets: secrets)
    }

    /// Checks a provider token (JWT) as APNs would against app `appID`'s `.p8` key: signature, key ID, team and age.
    ///
    /// - Returns: the token, or the rejection APNs would answer with.
    /// - Throws: ``ProviderError`` when there is no such app or it authenticates with a certificate.
    package func checkProviderToken(_ jwt: String, appID: String, now: Date? = nil) async throws(ProviderError)
        -> Result<APNSProviderToken, APNSRequestRejection>
    {
        guard let app = try await store.app(id: appID) else { throw .notFound("no app with id \(appID)") }
        guard
            case .token(let teamID, let keyID, let pem) = try BoundCredentials.open(
                app.sealedCredentials, with: secrets
            ).credentials
        else {
            throw .invalid(field: "app", message: "app \(appID) authenticates with a certificate, not a .p8 key")
        }
        var verifier = APNSProviderTokenVerifier()
        do {
            try verifier.addKey(pem: pem, keyID: keyID, teamID: teamID)
        } catch {
            throw .configuration("the app's key cannot check tokens: \(error)")
        }
        return await verifier.verify(jwt: jwt, now: now ?? self.now())
    }
}
