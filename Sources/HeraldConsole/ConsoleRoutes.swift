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
            _ = try requireSession(request)
            return try ConsoleRequest.json(console.metricsHistory.all)
        }
        router.get("console/api/send-files") { request, _ -> Response in
            _ = try requireSession(request)
            return try ConsoleRequest.json(console.configuration.sendFiles)
        }
    }

    /// The request's session, for the console's JSON routes.
    ///
    /// - Throws: ``ProviderError/unauthorized(_:)`` without one, ``ProviderError/forbidden(_:)`` for a change without
    ///   the session's CSRF token.
    func requireSession(_ request: Request) throws(ProviderError) -> ConsoleSessions.Session {
        guard let session = try console.checkedSession(of: request) else {
            throw .unauthorized("your console session has ended: sign in again at /console/login")
        }
        return session
    }

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
    /// bundle ID there only when the device's token for it is registered with that app: two apps may share a bundle
    /// ID (a development and a production one), and neither sees the other's devices.
    func visibleBundleIDs(_ session: ConsoleSessions.Session, device index: Int) async throws(ProviderError)
        -> Set<String>?
    {
        guard case .app(let app) = session.holder else { return nil }
        for entry in try await deviceJSON(index, "apps") where entry["bundleID"]?.string == app.bundleID {
            guard let token = entry["token"]?.string else { continue }
            if try await provider.device(appID: app.id, token: token) != nil { return [app.bundleID] }
        }
        return []
    }
}
