package import Foundation
package import ProviderStorage

extension PushProviderService {
    /// What ``ensureApp(_:)`` answers: the app's identifier and its publishable key.
    package struct AppHandle: Sendable {
        package let id: String
        package let publishableKey: String
    }

    /// The settings of an app to create or bring up to date (for `herald up`).
    package struct AppSettings: Sendable {
        package var name: String
        package var bundleID: String
        package var environment: String
        package var endpoint: String
        package var caPEM: String?
        package var teamID: String
        package var keyID: String
        package var privateKeyPEM: String
        /// The gateway's channel management URL (its `--manage-port`), for channels made through the provider.
        package var channelEndpoint: String?

        package init(
            name: String, bundleID: String, environment: String, endpoint: String, caPEM: String?, teamID: String,
            keyID: String, privateKeyPEM: String, channelEndpoint: String? = nil
        ) {
            self.name = name
            self.bundleID = bundleID
            self.environment = environment
            self.endpoint = endpoint
            self.caPEM = caPEM
            self.teamID = teamID
            self.keyID = keyID
            self.privateKeyPEM = privateKeyPEM
            self.channelEndpoint = channelEndpoint
        }
    }

    /// A user token for `userID` of app `appID`, as `POST /v1/users/{userID}/token` makes one (for `herald up`'s own
    /// device, which signs in as a demo user).
    package func userToken(appID: String, userID: String) -> String {
        UserToken.make(
            appID: appID, userID: userID, expires: now().addingTimeInterval(TimeInterval(UserToken.defaultLifetime)),
            secrets: secrets)
    }

    /// Sets an app's categories from `NotificationConfig` JSON, as `PUT /v1/apps/{id}/categories` does.
    ///
    /// - Throws: ``ProviderError`` when there is no such app or the JSON is not a valid `NotificationConfig`.
    package func setCategories(appID: String, notificationConfig json: Data) async throws(ProviderError) {
        guard let app = try await store.app(id: appID) else { throw .notFound("no app with id \(appID)") }
        _ = try await apps.setCategories(of: app, notificationConfig: json)
    }

    /// Creates the app, or updates the one with the same bundle ID and environment to these settings.
    ///
    /// - Throws: ``ProviderError`` when a setting is not valid.
    package func ensureApp(_ settings: AppSettings) async throws(ProviderError) -> AppHandle {
        let input = AppInput(
            name: settings.name, bundleID: settings.bundleID, environment: settings.environment,
            endpoint: settings.endpoint, caPEM: settings.caPEM ?? "",
            authentication: .init(
                kind: "token", teamID: settings.teamID, keyID: settings.keyID, privateKey: settings.privateKeyPEM),
            webhookURL: nil, rateLimit: nil, channelEndpoint: settings.channelEndpoint ?? "")
        if var existing = try await store.apps().first(where: {
            $0.app.bundleID == settings.bundleID && $0.app.environment == settings.environment
        }) {
            try apps.apply(input, to: &existing, creating: false, byAdmin: true)
            existing.app.updatedAt = now()
            try await store.updateApp(existing)
            return AppHandle(id: existing.app.id, publishableKey: existing.app.publishableKey)
        }
        let (app, _, _) = try await apps.createApp(input)
        return AppHandle(id: app.id, publishableKey: app.publishableKey)
    }
}
