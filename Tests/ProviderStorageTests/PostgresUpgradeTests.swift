import Crypto
import Foundation
import Logging
import PostgresNIO
import TestPacing
import Testing

@testable import ProviderStorage

/// Runs when `HERALD_TEST_POSTGRES` names a PostgreSQL database (as `.ci/run` sets it).
@Suite(
    "Upgrading a PostgreSQL provider database", .startsServers,
    .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
struct PostgresUpgradeTests {
    private static func store(schema: String) async throws -> PostgresStore {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        return try await PostgresStore(
            url: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, logger: Logger(label: "test"),
            messageKey: SymmetricKey(size: .bits256))
    }

    /// A schema as the releases before `migration` left it (their migrations applied, one app `old-app`), with the
    /// rows `fill` writes; the store of a helper schema that made it, the old schema's name, and the helper's.
    private static func oldDatabase(
        before migration: String,
        _ fill: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void
    ) async throws -> (helper: PostgresStore, oldSchema: String, helperSchema: String) {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let (helperSchema, oldSchema) = ("t_up_helper_" + suffix, "t_up_old_" + suffix)
        let helper = try await Self.store(schema: helperSchema)
        let before = try #require(PostgresSchema.migrations.firstIndex { $0.name == migration })
        let logger = helper.logger
        try await helper.transaction { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(oldSchema)"), logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(oldSchema)"), logger: logger)
            try await connection.query(
                "CREATE TABLE herald_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL)",
                logger: logger)
            for migration in PostgresSchema.migrations[..<before] {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO herald_migrations (name, applied_at) VALUES (\(migration.name), now())", logger: logger
                )
            }
            try await connection.query(
                """
                INSERT INTO apps (id, name, bundle_id, environment, endpoint, auth_kind, sealed_credentials,
                    publishable_key, created_at, updated_at)
                VALUES ('old-app', 'Old', 'com.example.old', 'development', 'https://127.0.0.1:1', 'token',
                    '\\x00', 'pk_old', now(), now())
                """, logger: logger)
            try await fill(connection, logger)
        }
        return (helper, oldSchema, helperSchema)
    }

    @Test("narrowing the deliveries (v16) keeps each delivery's number, notification, app and token, hex or not")
    func narrowDeliveriesUpgraded() async throws {
        // The schema as the release before v16 left it, with a broadcast's rows in it.
        let (helper, oldSchema, helperSchema) = try await Self.oldDatabase(before: "v16 narrow deliveries") {
            connection, logger in
            try await connection.query(
                """
                INSERT INTO notifications (id, app_id, target, payload, push_type, send_at, targeted, created_at)
                VALUES ('second', 'old-app', 'all', '{}', 'alert', now(), 1, now()),
                    ('first', 'old-app', 'all', '{}', 'alert', now(), 1, now())
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO deliveries (id, notification_id, app_id, token, state, attempts, not_before, status,
                    result_at)
                VALUES (5, 'first', 'old-app', 'aa', 'accepted', 1, now(), 200, now()),
                    (7, 'first', 'old-app', 'T1', 'accepted', 1, now(), 200, now()),
                    (9, 'second', 'old-app', 'bb', 'accepted', 1, now(), 200, now())
                """, logger: logger)
        }
        let upgraded = try await Self.store(schema: oldSchema)
        let first = try await upgraded.deliveries(notificationID: "first", after: 0, limit: 10)
        #expect(
            first.map { "\($0.notificationID) \($0.appID) \($0.token) \($0.state)" } == [
                "first old-app aa accepted", "first old-app T1 accepted",
            ])
        let second = try await upgraded.delivery(id: 9)
        #expect(second?.notificationID == "second")
        #expect(second?.token == "bb")
        let inFlight = try await upgraded.stats(notificationIDs: ["first", "second"])
        #expect(inFlight.count == 2)
        await upgraded.close()
        for schema in [oldSchema, helperSchema] {
            _ = try? await helper.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
        }
        await helper.close()
    }

    @Test("writing deliveries once (v17) keeps each delivery's state, attempts, lease, answer and reports")
    func deliveriesWrittenOnceUpgraded() async throws {
        let past = Date(timeIntervalSince1970: 1_780_000_000)
        let soon = Date().addingTimeInterval(600)
        let (helper, oldSchema, helperSchema) = try await Self.oldDatabase(before: "v17 deliveries written once") {
            connection, logger in
            try await connection.query(
                """
                INSERT INTO notifications (id, app_id, target, payload, push_type, send_at, targeted, created_at,
                    number)
                VALUES ('n', 'old-app', 'all', '{}', 'alert', now(), 6, now(), 3)
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO deliveries (id, notification, token, state, attempts, not_before, lease_owner,
                    lease_until, status, reason, apns_unique_id, result_at, delivered_at)
                VALUES (1, 3, 'aa', 'queued', 0, \(past), NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                    (2, 3, 'bb', 'queued', 1, \(soon), NULL, NULL, NULL, 'TooManyRequests', NULL, NULL, NULL),
                    (3, 3, 'cc', 'leased', 1, \(past), 'gone-provider', \(past), NULL, NULL, NULL, NULL, NULL),
                    (4, 3, 'dd', 'accepted', 2, \(past), NULL, NULL, 200, 'InternalServerError',
                        '8d2c6c3e-2a54-4b8b-9a53-3c1f2f0c6d11', \(past), \(past)),
                    (5, 3, 'ee', 'rejected', 1, \(past), NULL, NULL, 410, 'Unregistered', NULL, \(past), NULL),
                    (6, 3, 'ff', 'cancelled', 0, \(past), NULL, NULL, NULL, NULL, NULL, \(past), NULL)
                """, logger: logger)
        }
        let upgraded = try await Self.store(schema: oldSchema)
        let traces = try await upgraded.deliveries(notificationID: "n", after: 0, limit: 10)
        #expect(
            traces.map { "\($0.token) \($0.state) \($0.attempts) \($0.status ?? 0) \($0.reason ?? "-")" } == [
                "aa queued 0 0 -", "bb queued 1 0 TooManyRequests", "cc leased 1 0 -",
                "dd accepted 2 200 InternalServerError", "ee rejected 1 410 Unregistered", "ff cancelled 0 0 -",
            ])
        #expect(traces.allSatisfy { abs($0.notBefore.timeIntervalSince($0.token == "bb" ? soon : past)) < 0.001 })
        #expect(traces[2].leaseUntil == past)
        #expect(traces[3].apnsUniqueID == "8d2c6c3e-2a54-4b8b-9a53-3c1f2f0c6d11")
        #expect(traces[3].answeredAt == past && traces[3].deliveredAt == past)
        #expect(try await upgraded.stats(notificationIDs: ["n"])["n"]?.inFlight == 1)
        // The expired lease goes back to the queue; then the due deliveries are leased, the future one is not.
        #expect(try await upgraded.reclaimExpiredLeases(now: Date()) == 1)
        let leased = try await upgraded.lease(owner: "new", limit: 10, now: Date(), leaseFor: 30)
        #expect(leased.map(\.id) == [1, 3])
        #expect(leased.map(\.attempts) == [1, 2])
        await upgraded.close()
        for schema in [oldSchema, helperSchema] {
            _ = try? await helper.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
        }
        await helper.close()
    }
}
