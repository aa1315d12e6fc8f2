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
            return try JSONCoding.response(["status": "ok", "queueDepth": "\(depth)"])
        }
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: await self.provider.metricsExposition())))
        }
    }
}
