package import Foundation
package import Hummingbird
import Logging
package import ProviderStorage
package import PushProvider
import Synchronization

/// The Herald Console: the web pages a push team works in, served by the provider at `/console/` (docs/console.md).
///
/// The pages call the provider's own JSON API with the browser's session (an HttpOnly cookie, and a CSRF token on
/// every change), so every answer and error is the API's. What the API does not have (live lint, the delivery log
/// across gateway and devices, the simulated devices' screens, metrics over time) the console serves under
/// `/console/api/`.
///
/// ```swift
/// let console = try await ConsolePlugin(configuration: .init(deviceAPIs: [URL(string: "http://127.0.0.1:2198")!]))
/// let path = try await console.loginPath(key: provider.adminToken, provider: provider)
/// try await provider.run(plugins: [console]) { port in print("http://127.0.0.1:\(port)\(path)") }
/// ```
package final class ConsolePlugin: ProviderPlugin {
    let configuration: Configuration
    let sessions: ConsoleSessions
    /// The live views, each read once however many tabs show it.
    let feeds = LiveFeeds()
    let pages: ConsolePages
    let assets: ConsoleAssets
    let gatewayClient: ConsoleHTTPClient?
    let deviceClient: ConsoleHTTPClient
    let metricsHistory = MetricsHistory()
    private let deviceURLs: Mutex<[URL]>

    /// Parses the templates embedded in the binary and makes the console's HTTP clients.
    ///
    /// - Throws: when a template does not parse (a broken build), or the gateway's CA is not PEM.
    package init(configuration: Configuration) async throws {
        self.configuration = configuration
        sessions = ConsoleSessions(clock: configuration.clock)
        deviceURLs = Mutex(configuration.deviceAPIs)
        pages = try ConsolePages()
        assets = ConsoleAssets()
        gatewayClient = try configuration.gateway.map { try ConsoleHTTPClient(caPEM: $0.caPEM) }
        deviceClient = try ConsoleHTTPClient(caPEM: nil)
    }

    /// The simulated devices' APIs the Devices page draws.
    var deviceAPIs: [URL] { deviceURLs.withLock { $0 } }

    /// Replaces the simulated devices shown (a device's API port is known only once it listens).
    package func showDevices(at urls: [URL]) {
        deviceURLs.withLock { $0 = urls }
    }

    /// A path (`/console/login?code=…`) that signs a browser in once with `key` (the admin token or an API key)
    /// without showing it: the code in it is spent on first use, on any provider of `provider`'s database, and lapses
    /// after 15 minutes.
    ///
    /// - Throws: ``ProviderError`` when the provider's database cannot keep the code.
    package func loginPath(key: String, provider: PushProviderService) async throws(ProviderError) -> String {
        sessions.attach(to: provider)
        return "/console/login?code=\(try await sessions.makeLoginCode(for: key))"
    }

    package func addRoutes(to router: Router<ProviderRequestContext>, provider: PushProviderService) {
        sessions.attach(to: provider)
        let routes = ConsoleRoutes(console: self, provider: provider)
        routes.add(to: router)
    }

    /// The key of the request's session, for the provider's API, which checks the key itself on every request.
    package func sessionKey(for request: Request) async throws(ProviderError) -> String? {
        guard let session = try await storedSession(of: request) else { return nil }
        try checkCSRF(session.csrfToken, request)
        return session.key
    }

    package func run(provider: PushProviderService) async {
        await metricsHistory.sample(provider: provider)
        await gatewayClient?.shutdown()
        await deviceClient.shutdown()
    }

    /// Refuses a change (any method but GET, HEAD, OPTIONS) without the session's CSRF token.
    ///
    /// - Throws: ``ProviderError/forbidden(_:)`` for a change without the session's CSRF token.
    func checkCSRF(_ csrfToken: String, _ request: Request) throws(ProviderError) {
        if !ConsoleRequest.isSafe(request.method),
            !KeyMaker.matches(request.headers[ConsoleRequest.csrfHeader] ?? "", csrfToken)
        {
            throw .forbidden("the console's CSRF token is missing or wrong: reload the page and try again")
        }
    }

    /// The session the request's cookie names, as stored: its key not checked again
    /// (``ConsoleRoutes/liveSession(_:)`` checks it).
    func storedSession(of request: Request) async throws(ProviderError) -> ConsoleSessions.Stored? {
        guard let id = ConsoleRequest.sessionID(of: request) else { return nil }
        return try await sessions.session(id: id)
    }

    /// `session` with whom its key speaks for read again from the provider; `nil`, and the session ended, when the
    /// key no longer speaks for anyone it did (revoked or rotated, its app deleted, another admin token).
    ///
    /// - Throws: ``ProviderError/storage(_:)`` when the database did not answer (the session is kept).
    func confirmed(_ session: ConsoleSessions.Stored, by provider: PushProviderService) async throws(ProviderError)
        -> ConsoleSessions.Session?
    {
        let holder: PushProviderService.KeyHolder
        do {
            holder = try await provider.holder(of: session.key)
        } catch  where error.code == .unauthorized {
            try await sessions.close(id: session.id)
            return nil
        }
        switch (holder, session.holderAppID) {
        case (.admin, nil): return ConsoleSessions.Session(stored: session, holder: holder)
        case (.app(let app), let appID?) where app.id == appID:
            return ConsoleSessions.Session(stored: session, holder: holder)
        default:
            try await sessions.close(id: session.id)
            return nil
        }
    }
}
