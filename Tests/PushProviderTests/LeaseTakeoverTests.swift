import Foundation
import PostgresNIO
import TestPacing
import Testing

@testable import ProviderStorage
@testable import PushProvider

@Suite("A killed provider's leases on a shared PostgreSQL queue", .startsServers)
struct LeaseTakeoverTests {
    @Test(
        "leases of a provider that stopped beating go back to the queue within seconds, not when they run out",
        .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
    func takeover() async throws {
        // No workers of its own: the leases below belong to a provider that "dies" holding them.
        try await ProviderHarness.with(configure: { $0.workers = 0 }) { harness in
            let tokens = try (0..<3).map { _ in try harness.gatewayToken() }
            let (status, _) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["tokens": tokens], "content": ["body": "x"]])
            #expect(status == 202)
            let store = try #require(harness.provider.store as? PostgresStore)
            let leased = try await store.lease(owner: "dead-incarnation", limit: 10, now: Date(), leaseFor: 300)
            #expect(leased.count == 3)
            _ = try await store.heartbeat(owner: "dead-incarnation", staleAfter: 5)
            // Its last heartbeat was a minute ago: it was killed then.
            _ = try await store.rows(
                "UPDATE provider_heartbeats SET seen_at = now() - interval '1 minute' WHERE owner = 'dead-incarnation'")
            let began = Date()
            try await harness.until("the dead provider's leases requeued") {
                try await store.queueDepth() == 3
            }
            // The live provider's heartbeat (every second) takes them back, not the lease's end 300 s on: any time
            // well short of that tells the two apart, however slow the machine.
            #expect(Date().timeIntervalSince(began) < 120, "the heartbeat took them back, not the lease's end")
        }
    }
}
