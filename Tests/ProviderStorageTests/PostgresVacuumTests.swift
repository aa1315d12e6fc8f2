import Foundation
import Logging
import PostgresNIO
import TestPacing
import Testing

@testable import ProviderStorage

/// Runs when `HERALD_TEST_POSTGRES` names a PostgreSQL database (as `.ci/run` sets it).
@Suite(
    "PostgreSQL: nothing the provider does stops autovacuum", .startsServers,
    .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
struct PostgresVacuumTests {
    @Test("a broadcast written while the deliveries are being vacuumed neither waits for the vacuum nor cancels it")
    func broadcastBesideVacuum() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        try await StoreFixture.with(.postgres(url: url)) { fixture in
            let store = try #require(fixture.store as? PostgresStore)
            let at = Date(timeIntervalSince1970: 1_900_000_000)
            let devices = (0..<PostgresStore.analyzeAfter).map { DeviceInput(token: String(format: "%064x", $0 + 1)) }
            _ = try await store.upsertDevices(appID: fixture.appID, devices, at: at)
            // The lock a (auto)vacuum holds, held for 20 s.
            let vacuum = Task {
                try await store.transaction(within: .seconds(60)) { connection in
                    try await connection.query(
                        "LOCK TABLE deliveries IN SHARE UPDATE EXCLUSIVE MODE", logger: Logger(label: "vacuum"))
                    try await connection.query("SELECT pg_sleep(20)", logger: Logger(label: "vacuum"))
                }
            }
            defer { vacuum.cancel() }
            while try await store.count(
                """
                SELECT count(*) FROM pg_locks WHERE mode = 'ShareUpdateExclusiveLock' AND granted
                    AND relation = 'deliveries'::regclass
                """) == 0
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            let began = ContinuousClock.now
            let stored = StoredNotification(
                id: "n_vacuum", appID: fixture.appID, target: "all", payload: Data(#"{"aps":{"alert":"x"}}"#.utf8),
                pushType: "alert", sendAt: at, targeted: 0, createdAt: at)
            let targeted = try await store.insertNotification(stored, target: .all, requireKey: false)
            #expect(targeted == PostgresStore.analyzeAfter)
            // Before: its ANALYZE waited for the lock (and, against a real autovacuum, had it cancelled).
            #expect(ContinuousClock.now - began < .seconds(10), "the broadcast waited for the vacuum")
        }
    }

    @Test("every 10,000 answers the queue's table is vacuumed, mid-broadcast, without waiting for autovacuum")
    func queueVacuumedAsItGoes() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        try await StoreFixture.with(.postgres(url: url)) { fixture in
            let store = try #require(fixture.store as? PostgresStore)
            let at = Date(timeIntervalSince1970: 1_900_000_000)
            // One more device than the answers that call for a vacuum: the lease after them is not empty.
            let devices = (0...PostgresStore.vacuumQueueAfter).map {
                DeviceInput(token: String(format: "%064x", $0 + 1))
            }
            _ = try await store.upsertDevices(appID: fixture.appID, devices, at: at)
            let id = "n_vacuumed"
            let stored = StoredNotification(
                id: id, appID: fixture.appID, target: "all", payload: Data(#"{"aps":{"alert":"x"}}"#.utf8),
                pushType: "alert", sendAt: at, targeted: 0, createdAt: at)
            #expect(try await store.insertNotification(stored, target: .all, requireKey: false) == devices.count)
            // Its own vacuums of the table, not autovacuum's. (What a vacuum can remove, and whether it can give the
            // emptied table back to the disk, depends on every transaction open in the database, other tests' too.)
            let vacuums: PostgresQuery = """
                SELECT vacuum_count FROM pg_stat_user_tables
                WHERE schemaname = current_schema() AND relname = 'delivery_queue'
                """
            #expect(try await store.count(vacuums) == 0)
            var answered = 0
            while answered < PostgresStore.vacuumQueueAfter {
                let leased = try await store.lease(
                    owner: "w", limit: min(5000, PostgresStore.vacuumQueueAfter - answered), now: at + 1, leaseFor: 30)
                try #require(!leased.isEmpty)
                try await store.record(
                    leased.map { .accepted(id: $0.id, notificationID: id, uniqueID: nil, at: at + 2) }, owner: "w")
                answered += leased.count
            }
            // The next lease still finds a delivery, and vacuums the queue after leasing it.
            #expect(try await store.lease(owner: "w", limit: 5000, now: at + 1, leaseFor: 30).count == 1)
            // Statistics reach other sessions within a second or so.
            let deadline = ContinuousClock.now + .seconds(10)
            while try await store.count(vacuums) == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await store.count(vacuums) == 1, "the queue was not vacuumed")
            #expect(try await fixture.stats(id).accepted == PostgresStore.vacuumQueueAfter)
        }
    }
}
