import APNSCore
import Foundation
import HTTPTypes
import Hummingbird
import ProviderStorage
import PushProvider

/// The console's routes under `/console/`: sign-in, the pages, their assets, and the JSON the API does not have.
struct ConsoleRoutes: Sendable {
    let console: ConsolePlugin
    let provider: PushProviderService

    func add(to router: Router<ProviderRequestContext>) {
        addPageRoutes(to: router)
        addLintRoutes(to: router)
        addTraceRoutes(to: router)
        addDeviceRoutes(to: router)
        addLiveRoutes(to: router)
        addToolRoutes(to: router)
        router.get("console/api/metrics") { request, _ -> Response in
            guard case .admin = try await requireSession(request).holder else { throw Self.adminOnlyMetrics }
            return try ConsoleRequest.json(console.metricsHistory.all)
        }
        router.get("console/api/send-files") { request, _ -> Response in
            // The paths are the admin's files on the provider's machine: an app's session gets the command alone.
            guard case .admin = try await requireSession(request).holder else {
                return try ConsoleRequest.json(
                    ConsolePlugin.SendFiles(command: console.configuration.sendFiles.command))
            }
            return try ConsoleRequest.json(console.configuration.sendFiles)
        }
    }

    /// The provider's metrics cover every app: an app's session is not shown them.
    static let adminOnlyMetrics = ProviderError.forbidden(
        "the provider's metrics cover every app and are shown to the admin only: sign in with the admin token")

    /// The request's session, for the console's JSON routes, its key checked again (``liveSession(_:)``).
    ///
    /// - Throws: ``ProviderError/unauthorized(_:)`` without one (or when its key was revoked or its app deleted),
    ///   ``ProviderError/forbidden(_:)`` for a change without the session's CSRF token.
    func requireSession(_ request: Request) async throws(ProviderError) -> ConsoleSessions.Session {
        guard let stored = try await console.storedSession(of: request) else { throw Self.sessionEnded }
        try console.checkCSRF(stored.csrfToken, request)
        guard let session = try await console.confirmed(stored, by: provider) else { throw Self.sessionEnded }
        return session
    }

    /// The request's session when there is one and its key still speaks for whom it did: a revoked key, a deleted
    /// app or a changed admin token ends the session at once.
    func liveSession(_ request: Request) async throws(ProviderError) -> ConsoleSessions.Session? {
        guard let stored = try await console.storedSession(of: request) else { return nil }
        return try await console.confirmed(stored, by: provider)
    }

    static let sessionEnded = ProviderError.unauthorized(
        "your console session has ended (signed out, its key revoked or its app deleted): sign in again at "
            + "/console/login")

    /// Whether the session may see app `appID`'s data.
    func session(_ session: ConsoleSessions.Session, mayRead appID: String) -> Bool {
        switch session.holder {
        case .admin: true
        case .app(let app): app.id == appID
        }
    }

    /// Whose part of the simulated devices the session sees: `nil` for the admin (all of it), else the app's ID.
    func deviceScope(_ session: ConsoleSessions.Session) -> String? {
        switch session.holder {
        case .admin: nil
        case .app(let app): app.id
        }
    }

    /// The bundle IDs the session may see on simulated device `index`; `nil` for all. An app's session sees its
    /// bundle ID there only when the device's app is in the session's app's environment and its token is registered
    /// with that app: two apps may share a bundle ID (a development and a production one), and neither sees the
    /// other's devices, whatever tokens were registered with its publishable key.
    func visibleBundleIDs(_ session: ConsoleSessions.Session, device index: Int) async throws(ProviderError)
        -> Set<String>?
    {
        guard case .app(let app) = session.holder else { return nil }
        for entry in try await deviceJSON(index, "apps") where entry["bundleID"]?.string == app.bundleID {
            // The device's app in the other environment (a development and a production app share a bundle ID) is
            // not this app's, even when its token was registered with this app's publishable key.
            guard let token = entry["token"]?.string, entry["environment"]?.string == app.environment else { continue }
            if try await provider.device(appID: app.id, token: token) != nil { return [app.bundleID] }
        }
        return []
    }
}
