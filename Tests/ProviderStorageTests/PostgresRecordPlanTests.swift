import APNSCore
import Foundation
import PostgresNIO
import TestPacing
import Testing

@testable import ProviderStorage

/// Runs when `HERALD_TEST_POSTGRES` names a PostgreSQL database (as `.ci/run` sets it).
@Suite(
    "PostgreSQL: answers are recorded by looking up their queue rows, not by reading the queue", .startsServers,
    .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
struct PostgresRecordPlanTests {
    /// A lease's worth of deliveries in flight, of which one batch of answers comes back.
    static let inFlight = 10_000

    @Test("with 10,000 deliveries leased, no statement recording 1,000 answers of every kind scans the queue")
    func recordLooksUpQueueRows() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        try await StoreFixture.with(.postgres(url: url)) { fixture in
            let store = try #require(fixture.store as? PostgresStore)
            let at = Date(timeIntervalSince1970: 1_900_000_000)
            let devices = (0..<Self.inFlight).map { DeviceInput(token: String(format: "%064x", $0 + 1)) }
            _ = try await store.upsertDevices(appID: fixture.appID, devices, at: at)
            let id = "n_plan"
            let stored = StoredNotification(
                id: id, appID: fixture.appID, target: "all", payload: Data(#"{"aps":{"alert":"x"}}"#.utf8),
                pushType: "alert", sendAt: at, targeted: 0, createdAt: at)
            #expect(try await store.insertNotification(stored, target: .all, requireKey: false) == Self.inFlight)
            let leased = try await store.lease(owner: "w", limit: Self.inFlight, now: at, leaseFor: 60)
            try #require(leased.count == Self.inFlight)
            // The statistics a vacuum of the queue leaves in the middle of a broadcast (the provider vacuums it
            // every 10,000 answers): the queue as it is now, its lease owners unmeasured.
            _ = try await store.rows("VACUUM ANALYZE delivery_queue")
            let results: [DeliveryResult] = leased.prefix(1_000).enumerated().map { index, delivery in
                switch index % 4 {
                case 0, 1:
                    .accepted(id: delivery.id, notificationID: id, uniqueID: UUID().lowercasedString, at: at + 1)
                case 2:
                    .rejected(
                        id: delivery.id, notificationID: id, status: 400, reason: "BadDeviceToken", at: at + 1,
                        deactivate: nil)
                default: .retry(id: delivery.id, reason: "TooManyRequests", notBefore: at + 60)
                }
            }
            let statements = PostgresStore.recordStatements(.init(results), owner: "w")
            #expect(statements.count == 3)
            for statement in statements {
                let plan = try await store.rows(
                    PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, binds: statement.binds)
                ).map { try $0.decode(String.self) }.joined(separator: "\n")
                // Before: "Seq Scan on delivery_queue q", 10,000 rows read and hashed to find 250 to 500.
                #expect(!plan.contains("Seq Scan on delivery_queue"), "\(plan)")
            }
            try await store.record(results, owner: "w")
            let stats = try await fixture.stats(id)
            #expect(stats.accepted == 500 && stats.rejected == ["BadDeviceToken": 250])
            #expect(stats.inFlight == Self.inFlight - 1_000 && stats.queued == 250)
        }
    }
    @Test(
        "a report's statistics are one statement that counts the 100 leased of 10,000 in the queue through their index")
    func statsReadTheLeasedIndex() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        try await StoreFixture.with(.postgres(url: url)) { fixture in
            let store = try #require(fixture.store as? PostgresStore)
            let at = Date(timeIntervalSince1970: 1_900_000_000)
            let devices = (0..<Self.inFlight).map { DeviceInput(token: String(format: "%064x", $0 + 1)) }
            _ = try await store.upsertDevices(appID: fixture.appID, devices, at: at)
            let id = "n_stats"
            let stored = StoredNotification(
                id: id, appID: fixture.appID, target: "all", payload: Data(#"{"aps":{"alert":"x"}}"#.utf8),
                pushType: "alert", sendAt: at, targeted: 0, createdAt: at)
            #expect(try await store.insertNotification(stored, target: .all, requireKey: false) == Self.inFlight)
            // The queue fills as it is leased: all 10,000 leased, then 9,900 back to wait (a retry), 100 still out.
            let leased = try await store.lease(owner: "w", limit: Self.inFlight, now: at, leaseFor: 60)
            try #require(leased.count == Self.inFlight)
            try await store.record(
                leased.dropFirst(100).map { .retry(id: $0.id, reason: "TooManyRequests", notBefore: at + 60) },
                owner: "w")
            _ = try await store.rows("VACUUM ANALYZE delivery_queue")
            let query = PostgresStore.statsQuery([id])
            let plan = try await store.rows(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds))
                .map { try $0.decode(String.self) }.joined(separator: "\n")
            #expect(!plan.contains("Seq Scan on delivery_queue"), "\(plan)")
            let stats = try await fixture.stats(id)
            #expect(stats.targeted == Self.inFlight && stats.inFlight == 100 && stats.queued == Self.inFlight - 100)
        }
    }
}
