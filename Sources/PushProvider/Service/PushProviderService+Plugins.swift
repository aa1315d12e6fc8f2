import APNSCore
import Foundation
import HeraldTime
import Prometheus
package import ProviderStorage

extension PushProviderService {
    /// Whom a key speaks for, as a plugin signing someone in needs to know.
    package enum KeyHolder: Sendable, Equatable {
        /// The admin token: every app.
        case admin
        /// One app's secret API key.
        case app(ProviderApp)
    }

    /// Whether `key` is the admin token, compared in constant time.
    package func isAdminToken(_ key: String) -> Bool {
        KeyMaker.matches(key, adminToken)
    }

    /// Whom `key` speaks for.
    ///
    /// - Throws: ``ProviderError/unauthorized(_:)`` for an unknown key or a publishable key (it ships inside apps and
    ///   proves nothing).
    package func holder(of key: String) async throws(ProviderError) -> KeyHolder {
        if isAdminToken(key) { return .admin }
        if key.hasPrefix("sk_"), let found = try await store.app(apiKeyHash: KeyMaker.hash(key)) {
            return .app(found.app.app)
        }
        if key.hasPrefix("pk_") {
            throw .unauthorized("a publishable key (pk_) cannot sign in; use the admin token or an app's API key (sk_)")
        }
        throw .unauthorized("this is neither the admin token nor an API key of any app")
    }

    /// The service's metrics in Prometheus' text format, as `/metrics` serves them.
    package func metricsExposition() async -> String {
        let shared =
            (try? await store.exportsSharedGauges(owner: engine.owner, staleAfter: engine.settings.staleAfter)) ?? true
        return await metrics.exposition(
            store: store, reachability: engine.reachability, inFlight: await clients.notificationsInFlight(),
            sharedGauges: shared, now: configuration.clock.currentDate)
    }
}

extension PushProviderService {
    /// The app with identifier `id`, as the API shows it.
    package func app(id: String) async throws(ProviderError) -> ProviderApp? {
        try await store.app(id: id)?.app
    }

    /// Every app, as the API shows them.
    package func allApps() async throws(ProviderError) -> [ProviderApp] {
        try await store.apps().map(\.app)
    }

    /// The device the app registered with `token`, if any.
    package func device(appID: String, token: String) async throws(ProviderError) -> DeviceRecord? {
        try await store.device(appID: appID, token: token)
    }
}

extension PushProviderService {
    /// Where the console keeps its sessions, sign-in codes and failed sign-ins: the provider's database, so every
    /// provider on it knows them.
    package var consoleSessionStore: any ConsoleSessionStore { store }

    /// Where the console keeps its Metrics page's last hour: the provider's database, so a restart keeps it.
    package var consoleMetricStore: any ConsoleMetricStore { store }

    /// `text` sealed with the master key (which every provider on one database shares), as base64.
    package func seal(_ text: String) -> String {
        secrets.seal(Data(text.utf8)).base64EncodedString()
    }

    /// The text ``seal(_:)`` sealed.
    ///
    /// - Throws: ``ProviderError`` when it is not base64 or was not sealed with this master key.
    package func unseal(_ sealed: String) throws(ProviderError) -> String {
        guard let data = Data(base64Encoded: sealed) else { throw .configuration("a sealed value is not base64") }
        return String(decoding: try secrets.open(data), as: UTF8.self)
    }
}
