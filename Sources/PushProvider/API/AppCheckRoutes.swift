import APNSClient
import APNSCore
import Foundation
import HeraldTime
import Hummingbird
import ProviderStorage

struct AppCheckRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    /// The apps' APNs clients, whose connections the check uses.
    let clients: ClientRegistry

    /// `POST /v1/apps/{appID}/check`: `herald doctor`'s credentials and clock checks with the app's sealed credentials,
    /// through the client the provider sends with (its connection and provider token), so nothing leaves the
    /// provider but a background push, not stored, to a token no device has.
    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("apps/:appID/check") { request, context -> Response in
            let app = try await context.caller.serverApp(
                request, store: self.store, pathAppID: try context.parameters.decoded("appID"))
            let checks: [DoctorCheck]
            do {
                let endpoint = try APNSEndpoint(url: app.app.endpoint, additionalTrustRootsPEM: app.caPEM)
                let client = try await self.clients.client(for: app)
                checks = await CredentialsProbe.run(client: client, endpoint: endpoint, topic: app.app.bundleID)
            } catch {
                checks = [
                    .failed(
                        "credentials", "the app's client cannot be made: \(error)",
                        next: "replace the app's key or certificate (PATCH /v1/apps/{id}, the console's Apps page)")
                ]
            }
            let answer: JSONValue = [
                "app": .string(app.app.id), "endpoint": .string(app.app.endpoint),
                "ok": .bool(checks.allSatisfy { $0.outcome != .failed }), "checks": .array(checks.map(\.json)),
            ]
            return try JSONCoding.response(answer)
        }
    }
}
