import APNSClient
import APNSCore
import APNSGateway
import Foundation
import GatewayTestSupport
import Synchronization
import TestPacing
import Testing

/// Cancelling the task that sends: what was handed over ends at once, not at its deadline, and nothing more is read.
@Suite("A cancelled send", .startsServers)
struct CancelledSendTests {
    /// Tells when the client opened its connection: everything sent before it waits on that connection.
    final class ConnectionWatcher: APNSClientObserver {
        let opened: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() { (opened, continuation) = AsyncStream.makeStream() }

        func notificationSent(attempt: Int) {}
        func notificationFinished(_ notification: APNSNotification, result: APNSResult, latency: Duration) {}
        func notificationRetried(reason: APNSReason, attempt: Int, delay: Duration) {}
        func streamsChanged(open: Int, limit: Int) {}
        func connectionsChanged(open: Int) { if open > 0 { continuation.yield() } }
    }

    /// A client of `gateway` that connects through `proxy`, patiently, and tells `watcher` when it opens a connection.
    static func client(of gateway: ClientHarness, through proxy: LatencyProxy, watcher: ConnectionWatcher) throws
        -> APNSPushClient
    {
        let endpoint = try APNSEndpoint(
            url: "https://127.0.0.1:\(proxy.port)",
            additionalTrustRootsPEM: gateway.server.certificateAuthority.caCertificatePEM)
        return try gateway.client {
            $0.endpoint = endpoint
            $0.connectTimeout = .seconds(600)
            $0.observer = watcher
        }
    }

    @Test(
        "a bulk send waiting for a connection ten minutes away returns at once when cancelled, every one Cancelled")
    func bulkWaitingForConnection() async throws {
        try await ClientHarness.with { gateway in
            let farAway = try LatencyProxy(targetPort: gateway.port, roundTripMilliseconds: 600_000)
            defer { farAway.stop() }
            let watcher = ConnectionWatcher()
            let client = try Self.client(of: gateway, through: farAway, watcher: watcher)
            let outcomes = Mutex<[APNSSendOutcome]>([])
            let notifications = (0..<10).map { _ in gateway.notification() }
            let sending = Task {
                try await client.send(contentsOf: notifications) { outcome in outcomes.withLock { $0.append(outcome) } }
            }
            var opened = watcher.opened.makeAsyncIterator()
            await opened.next()
            let cancelledAt = ContinuousClock.now
            sending.cancel()
            try await sending.value
            let took = ContinuousClock.now - cancelledAt
            #expect(took < .seconds(20), "returned \(took) after the cancel; the deadline is 30 s")
            let reported = outcomes.withLock { $0 }
            #expect(reported.count == 10, "each notification read has its outcome")
            #expect(Set(reported.map(\.index)) == Set(0..<10))
            for outcome in reported {
                guard case .rejected(let rejection) = outcome.result else {
                    Issue.record("\(outcome.index) was \(outcome.result)")
                    continue
                }
                #expect(rejection.reason == .cancelled && rejection.status == nil)
                #expect(rejection.message.contains("before it was written"), "\(rejection.message)")
            }
            await client.shutdown()
        }
    }

    @Test("one send cancelled while it waits for the connection returns Cancelled at once")
    func singleWaitingForConnection() async throws {
        try await ClientHarness.with { gateway in
            let farAway = try LatencyProxy(targetPort: gateway.port, roundTripMilliseconds: 600_000)
            defer { farAway.stop() }
            let watcher = ConnectionWatcher()
            let client = try Self.client(of: gateway, through: farAway, watcher: watcher)
            let notification = gateway.notification()
            let sending = Task { try await client.send(notification) }
            var opened = watcher.opened.makeAsyncIterator()
            await opened.next()
            sending.cancel()
            guard case .rejected(let rejection) = try await sending.value else {
                Issue.record("a cancelled send was accepted")
                return
            }
            #expect(rejection.reason == .cancelled)
            await client.shutdown()
        }
    }

    @Test("a send started in a cancelled task reads nothing of an endless sequence and returns")
    func endlessSequenceInCancelledTask() async throws {
        try await ClientHarness.with { gateway in
            let client = try gateway.client()
            let notification = gateway.notification()
            let read = Atomic(0)
            let endless = (0...).lazy.map { _ in
                read.add(1, ordering: .relaxed)
                return notification
            }
            let outcomes = Atomic(0)
            let sending = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await client.send(contentsOf: endless) { _ in outcomes.add(1, ordering: .relaxed) }
            }
            try await sending.value
            #expect(read.load(ordering: .relaxed) == 0, "a cancelled send reads nothing")
            #expect(outcomes.load(ordering: .relaxed) == 0)
            await client.shutdown()
        }
    }
}
