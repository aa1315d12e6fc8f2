import APNSClient
import APNSCore
import APNSGateway
import Foundation
import GatewayTestSupport
import Synchronization
import TestPacing
import Testing

/// The client against the gateway put a round trip away by Benchmarks/latency-proxy.py: it must keep more streams in
/// flight than on loopback, as many as rate × round trip needs, within what the server allows.
@Suite("The client against a far server", .startsServers)
struct FarServerTests {
    /// Records the most streams open at once.
    final class StreamWatcher: APNSClientObserver {
        let most = Mutex(0)
        func notificationSent(attempt: Int) {}
        func notificationFinished(_ notification: APNSNotification, result: APNSResult, latency: Duration) {}
        func notificationRetried(reason: APNSReason, attempt: Int, delay: Duration) {}
        func streamsChanged(open: Int, limit: Int) { most.withLock { $0 = max($0, open) } }
        func connectionsChanged(open: Int) {}
    }

    @Test("60 ms away, one connection keeps well over 100 streams in flight and loses or repeats nothing")
    func manyStreamsWhenFar() async throws {
        try await ClientHarness.with { gateway in
            let proxy = try LatencyProxy(targetPort: gateway.port, roundTripMilliseconds: 60)
            defer { proxy.stop() }
            let port = proxy.port
            let watcher = StreamWatcher()
            var configuration = try gateway.configuration()
            configuration.endpoint = try APNSEndpoint(
                url: "https://127.0.0.1:\(port)",
                additionalTrustRootsPEM: gateway.server.certificateAuthority.caCertificatePEM)
            configuration.observer = watcher
            let client = try APNSPushClient(configuration: configuration)
            let accepted = Mutex(Set<String>())
            let count = 6000
            try await client.send(contentsOf: (0..<count).map { _ in gateway.notification() }) { outcome in
                if case .accepted(let acceptance) = outcome.result {
                    _ = accepted.withLock { $0.insert(acceptance.apnsID) }
                }
            }
            await client.shutdown()
            #expect(accepted.withLock { $0.count } == count, "every notification accepted once")
            let most = watcher.most.withLock { $0 }
            #expect(most > 300, "at most \(most) streams in flight 60 ms away")
            #expect(most <= 1000)
        }
    }
}
