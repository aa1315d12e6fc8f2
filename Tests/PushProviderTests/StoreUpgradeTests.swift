import Foundation
import GRDB
import TestPacing
import Testing

@testable import ProviderStorage
@testable import PushProvider

@Suite("Upgrading a provider database", .startsServers)
struct StoreUpgradeTests {
    /// The statement that adds app `old-app` to a database of any release.
    static let oldApp = """
        INSERT INTO apps (id, name, bundle_id, environment, endpoint, auth_kind, sealed_credentials, publishable_key,
            created_at, updated_at)
        VALUES ('old-app', 'Old', 'com.example.old', 'development', 'https://127.0.0.1:1', 'token', x'00', 'pk_old', 0, 0);
        """

    /// A provider's data directory whose SQLite database has the tables of release `migration`, open to fill.
    static func oldDatabase(upTo migration: String) throws -> (URL, DatabasePool) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("provider-\(UUID())")
        let path = directory.appendingPathComponent("provider/provider.sqlite").path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: path)
        try SQLiteSchema.migrator.migrate(pool, upTo: migration)
        return (directory, pool)
    }

    @Test(
        "a SQLite database from before the counters is upgraded and its reports keep their numbers",
        .disabled(if: SharedQueueTests.onPostgres, "the SQLite migration path"))
    func countersBackfilled() async throws {
        let (directory, pool) = try Self.oldDatabase(upTo: "v1")
        try await pool.write { db in
            try db.execute(
                sql: """
                    \(Self.oldApp)
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
        "narrowing the deliveries (v12) keeps each delivery's number, notification and apns-id, and never reuses a number",
        .disabled(if: SharedQueueTests.onPostgres, "the SQLite migration path"))
    func narrowDeliveriesUpgraded() async throws {
        let (directory, pool) = try Self.oldDatabase(upTo: "v11 lifecycle and retention")
        // Made now: older records would be pruned when the provider starts.
        let now = Int(Date().timeIntervalSince1970)
        try await pool.write { db in
            try db.execute(
                sql: """
                    \(Self.oldApp)
                    INSERT INTO notifications (id, app_id, target, payload, push_type, send_at, targeted, created_at)
                    VALUES ('second', 'old-app', 'all', '{}', 'alert', 0, 1, \(now + 1)),
                        ('first', 'old-app', 'all', '{}', 'alert', 0, 1, \(now));
                    INSERT INTO deliveries (id, notification_id, app_id, token, state, attempts, not_before, status,
                        result_at)
                    VALUES (5, 'first', 'old-app', 'aa', 'accepted', 1, 0, 200, \(now)),
                        (9, 'second', 'old-app', 'bb', 'accepted', 1, 0, 200, \(now + 1));
                    UPDATE sqlite_sequence SET seq = 20 WHERE name = 'deliveries';
                    """)
        }
        try SQLiteSchema.migrator.migrate(pool)
        let (rows, next) = try await pool.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id, n.id AS notification, d.token FROM deliveries d
                    JOIN notifications n ON n.number = d.notification ORDER BY d.id
                    """
            ).map { "\($0["id"] as Int64) \($0["notification"] as String) \(CompactText.tokenText($0["token"]))" }
            try db.execute(
                sql: """
                    INSERT INTO deliveries (notification, token, state, not_before, status, result_at)
                    SELECT number, 'cc', 'accepted', 0, 200, \(now) FROM notifications WHERE id = 'first'
                    """)
            return (rows, db.lastInsertedRowID)
        }
        try pool.close()
        #expect(rows == ["5 first aa", "9 second bb"])
        #expect(next == 21, "a number pruned before the upgrade (up to 20) is not given again")
        try await ProviderHarness.with(dataDirectory: directory) { harness in
            for (notification, number, token) in [("first", 5, "aa"), ("second", 9, "bb")] {
                let (status, list) = try await harness.call(
                    "GET", "/v1/notifications/\(notification)/deliveries?app=old-app", key: harness.adminToken)
                #expect(status == 200, "\(list)")
                let delivery = try #require(list.array.first, "\(list)")
                #expect(delivery["token"].string == token)
                #expect(delivery["state"].string == "accepted")
                let apnsID = try #require(delivery["apnsID"].string)
                #expect(DeliveryMessageID(apnsID, key: harness.provider.store.messageKey)?.deliveryID == Int64(number))
                let (found, trace) = try await harness.call(
                    "GET", "/v1/deliveries/\(apnsID)?app=old-app", key: harness.adminToken)
                #expect(found == 200, "\(trace)")
                #expect(trace["notificationID"].string == notification, "\(trace)")
            }
        }
    }
}
