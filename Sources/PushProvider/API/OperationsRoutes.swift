import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus
import ProviderStorage

struct OperationsRoutes: Sendable {
    let provider: PushProviderService

    func addRoutes(to router: Router<ProviderRequestContext>) {
        router.get("healthz") { _, _ -> Response in
            let depth = try await self.provider.store.queueDepth()
            let outages = self.provider.engine.reachability.all.sorted { $0.key < $1.key }
            // The provider itself is healthy (200) while APNs cannot be reached; `apns` says so for an alert.
            return try JSONCoding.response(
                Health(
                    status: "ok", queueDepth: "\(depth)", apns: outages.isEmpty ? "reachable" : "unreachable",
                    unreachable: outages.map { .init(app: $0.key, since: $0.value.since, reason: $0.value.reason) }))
        }
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: await self.provider.metricsExposition())))
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
