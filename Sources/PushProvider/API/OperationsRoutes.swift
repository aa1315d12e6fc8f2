import Foundation
import HTTPTypes
import HeraldSupport
import Hummingbird
import NIOCore
import Prometheus
import ProviderStorage

/// `/healthz` and `/metrics`: what the provider's queue, its APNs connections and its counters say, without a key
/// (`/healthz` names the apps that cannot reach APNs only to a key that may see them).
struct OperationsRoutes: Sendable {
    let store: any ProviderStore
    /// Which apps cannot reach APNs now.
    let reachability: APNSReachability
    let metrics: ProviderMetrics
    /// The metrics in Prometheus' text format (``PushProviderService/metricsExposition()``).
    let exposition: @Sendable () async -> String
    /// Who calls, when the request has a valid key (`nil` without one: `/healthz` answers anyone).
    let caller: @Sendable (Request) async -> Caller?
    /// Who may read `/metrics`, and the admin token, which always may.
    let metricsAccess: MetricsAccess
    let adminToken: String

    func addRoutes(to router: Router<ProviderRequestContext>) {
        router.get("healthz") { request, _ -> Response in
            let depth = try await self.store.queueDepth()
            let outages = self.reachability.all.sorted { $0.key < $1.key }.map {
                Health.Outage(app: $0.key, since: $0.value.since, reason: $0.value.reason)
            }
            let refused = try await self.store.apps().compactMap { stored in
                stored.app.pauseReason.map {
                    Health.Outage(app: stored.app.id, since: stored.app.pausedAt ?? .distantPast, reason: $0)
                }
            }
            // Which apps are out names them: only for a key that may see them (the admin all, an API key its own).
            let visible: (([Health.Outage]) -> [Health.Outage]?)
            switch await self.caller(request) {
            case .admin?: visible = { $0 }
            case .server(let app, _)?: visible = { $0.filter { $0.app == app.app.id } }
            case .device?, nil: visible = { _ in nil }
            }
            // The provider itself is healthy (200) while APNs cannot be reached or refuses an app's credentials;
            // `apns` and `credentials` say so for an alert.
            return try JSONCoding.response(
                Health(
                    status: "ok", version: HeraldVersion.current, queueDepth: "\(depth)",
                    apns: outages.isEmpty ? "reachable" : "unreachable",
                    unreachableApps: outages.count, unreachable: visible(outages),
                    credentials: refused.isEmpty ? "accepted" : "refused", credentialPausedApps: refused.count,
                    credentialPaused: visible(refused)))
        }
        router.get("metrics") { request, _ -> Response in
            guard self.metricsAccess.allows(authorization: request.headers[.authorization], adminToken: self.adminToken)
            else {
                throw ProviderError.unauthorized(
                    "/metrics needs a bearer token: the scrape token of herald serve --metrics-token-file, or the admin "
                        + "token (Authorization: Bearer TOKEN; in Prometheus, authorization.credentials_file)")
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: await self.exposition())))
        }
    }
}

/// The body of `GET /healthz`.
private struct Health: Encodable {
    struct Outage: Encodable {
        var app: String
        var since: Date
        var reason: String
    }

    var status: String
    /// The provider's version (`herald --version`): several providers on one database may differ during an upgrade.
    var version: String
    var queueDepth: String
    /// `reachable`, or `unreachable` while some app's connections to APNs cannot be made.
    var apns: String
    /// How many apps cannot reach APNs now.
    var unreachableApps: Int
    /// Which, for the admin token (every app) or an app's API key (its own); absent without a key.
    var unreachable: [Outage]?
    /// `accepted`, or `refused` while some app is paused because APNs refused its credentials or topic.
    var credentials: String
    /// How many apps are paused so.
    var credentialPausedApps: Int
    /// Which, since when and APNs' reason, for a key that may see them; absent without a key.
    var credentialPaused: [Outage]?
}
