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
    let metrics: ProviderMetrics

    /// `POST /v1/apps/{appID}/check`: `herald doctor`'s credentials and clock checks with the app's sealed credentials,
    /// from the provider's machine, so nothing leaves the provider but a background push, not stored, to a token no
    /// device has. The push goes through a client of its own: it is counted as a check
    /// (`herald_provider_credential_checks_total`), never as one of the app's sends.
    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("apps/:appID/check") { request, context -> Response in
            let app = try await context.caller.serverApp(
                request, store: self.store, pathAppID: try context.parameters.decoded("appID"), needs: .apps)
            let checks: [DoctorCheck]
            do {
                let endpoint = try APNSEndpoint(url: app.app.endpoint, additionalTrustRootsPEM: app.caPEM)
                let client = try await self.clients.checkClient(for: app)
                checks = await CredentialsProbe.run(client: client, endpoint: endpoint, topic: app.app.bundleID)
                await client.shutdown()
            } catch {
                checks = [
                    .failed(
                        "credentials", "the app's client cannot be made: \(error)",
                        next: "replace the app's key or certificate (PATCH /v1/apps/{id}, the console's Apps page)")
                ]
            }
            self.metrics.credentialChecked(passed: checks.allSatisfy { $0.outcome != .failed })
            let answer: JSONValue = [
                "app": .string(app.app.id), "endpoint": .string(app.app.endpoint),
                "ok": .bool(checks.allSatisfy { $0.outcome != .failed }), "checks": .array(checks.map(\.json)),
            ]
            return try JSONCoding.response(answer)
        }
    }
}
