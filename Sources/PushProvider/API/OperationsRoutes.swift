import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus
import ProviderStorage

/// `/healthz` and `/metrics`: what the provider's queue, its APNs connections and its counters say, without a key.
struct OperationsRoutes: Sendable {
    let store: any ProviderStore
    /// Which apps cannot reach APNs now.
    let reachability: APNSReachability
    let metrics: ProviderMetrics

    func addRoutes(to router: Router<ProviderRequestContext>) {
        router.get("healthz") { _, _ -> Response in
            let depth = try await self.store.queueDepth()
            let outages = self.reachability.all.sorted { $0.key < $1.key }
            // The provider itself is healthy (200) while APNs cannot be reached; `apns` says so for an alert.
            return try JSONCoding.response(
                Health(
                    status: "ok", queueDepth: "\(depth)", apns: outages.isEmpty ? "reachable" : "unreachable",
                    unreachable: outages.map { .init(app: $0.key, since: $0.value.since, reason: $0.value.reason) }))
        }
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: await self.metrics.exposition(store: self.store, reachability: self.reachability))))
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
    var queueDepth: String
    /// `reachable`, or `unreachable` while some app's connections to APNs cannot be made.
    var apns: String
    var unreachable: [Outage]
}
