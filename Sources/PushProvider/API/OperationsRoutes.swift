import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus

extension PushProviderService {
    func addOperationsRoutes(to router: Router<BasicRequestContext>) {
        router.get("healthz") { _, _ -> Response in
            let depth = try await self.store.queueDepth()
            return try JSONCoding.response(["status": "ok", "queueDepth": "\(depth)"])
        }
        router.get("metrics") { _, _ -> Response in
            if let depth = try? await self.store.queueDepth() { self.metrics.queueDepth.set(Double(depth)) }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: self.metrics.render())))
        }
    }
}
