import Foundation
import GRDB
import Testing

@testable import ProviderStorage
@testable import PushProvider

@Suite("Upgrading a provider database")
struct StoreUpgradeTests {
    @Test(
        "a SQLite database from before the counters is upgraded and its reports keep their numbers",
        .disabled(if: SharedQueueTests.onPostgres, "the SQLite migration path"))
    func countersBackfilled() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("provider-\(UUID())")
        let path = directory.appendingPathComponent("provider/provider.sqlite").path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: path)
        try SQLiteSchema.migrator.migrate(pool, upTo: "v1")
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO apps (id, name, bundle_id, environment, endpoint, auth_kind, sealed_credentials,
                        publishable_key, created_at, updated_at)
                    VALUES ('old-app', 'Old', 'com.example.old', 'development', 'https://127.0.0.1:1', 'token',
                        x'00', 'pk_old', 0, 0);
                    INSERT INTO notifications (id, app_id, target, payload, push_type, send_at, targeted, created_at)
                    VALUES ('old-notification', 'old-app', 'all', '{}', 'alert', 0, 4, 0);
                    INSERT INTO deliveries (notification_id, app_id, token, state, not_before, delivered_at,
                        opened_at, reply)
                    VALUES ('old-notification', 'old-app', 'aa', 'accepted', 0, 1, 2, 'yes'),
                        ('old-notification', 'old-app', 'bb', 'accepted', 0, 1, NULL, NULL);
                    INSERT INTO deliveries (notification_id, app_id, token, state, reason, not_before)
                    VALUES ('old-notification', 'old-app', 'cc', 'rejected', 'BadDeviceToken', 0),
                        ('old-notification', 'old-app', 'dd', 'queued', NULL, 4102444800);
                    """)
        }
        try pool.close()
        // The queued delivery is due in 2100: a worker that leased it before the read would count it as in flight.
        try await ProviderHarness.with(dataDirectory: directory) { harness in
            let (status, report) = try await harness.call(
                "GET", "/v1/notifications/old-notification?app=old-app", key: harness.adminToken)
            #expect(status == 200, "\(report)")
            let stats = report["stats"]
            #expect(stats["targeted"].int == 4)
            #expect(stats["accepted"].int == 2)
            #expect(stats["rejected"]["BadDeviceToken"].int == 1)
            #expect(stats["queued"].int == 1)
            #expect(stats["delivered"].int == 2)
            #expect(stats["opened"].int == 1)
            #expect(stats["replies"].int == 1)
        }
    }

    @Test(
        "the count of deliveries in flight reads the index of leased rows, never every delivery of the notification",
        .disabled(if: SharedQueueTests.onPostgres, "SQLite's query planner"))
    func inFlightCountUsesTheLeasedIndex() throws {
        let queue = try DatabaseQueue()
        try SQLiteSchema.migrator.migrate(queue)
        let plan = try queue.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + SQLiteStore.inFlightSQL(count: 2), arguments: ["a", "b"]
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("deliveries_leased") }, "\(plan)")
        #expect(!plan.contains { $0.contains("deliveries_by_notification") }, "\(plan)")
    }
}
