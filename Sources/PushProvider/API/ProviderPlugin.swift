package import Hummingbird
package import ProviderStorage

/// A module served beside the API by the provider's own server (the console, `ConsolePlugin` of the module `HeraldConsole`): it adds its routes, and
/// may vouch for the key behind a request that carries none in its headers (a signed-in browser's session).
package protocol ProviderPlugin: Sendable {
    /// Adds the plugin's routes to the provider's router.
    func addRoutes(to router: Router<ProviderRequestContext>, provider: PushProviderService)

    /// The admin token or API key of the session `request` belongs to; `nil` when it belongs to none.
    ///
    /// - Throws: ``ProviderError/forbidden(_:)`` when the session exists but the request may not use it (a change
    ///   without the session's CSRF token).
    func sessionKey(for request: Request) async throws(ProviderError) -> String?

    /// The plugin's own work while the provider runs (sampling, connections to close). It returns only once cancelled,
    /// at shutdown: the provider stops when any of its tasks returns.
    func run(provider: PushProviderService) async
}
