import Crypto
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import ProviderStorage

/// Runs when `HERALD_TEST_POSTGRES` names a PostgreSQL database (as `.ci/run` sets it).
@Suite(
    "Upgrading a PostgreSQL provider database",
    .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
struct PostgresUpgradeTests {
    private static func store(schema: String) async throws -> PostgresStore {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        return try await PostgresStore(
            url: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, logger: Logger(label: "test"),
            messageKey: SymmetricKey(size: .bits256))
    }

    @Test("narrowing the deliveries (v16) keeps each delivery's number, notification, app and token, hex or not")
    func narrowDeliveriesUpgraded() async throws {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let (helperSchema, oldSchema) = ("t_up_helper_" + suffix, "t_up_old_" + suffix)
        let helper = try await Self.store(schema: helperSchema)
        // The schema as the release before v16 left it, with a broadcast's rows in it.
        let before = try #require(PostgresSchema.migrations.firstIndex { $0.name == "v16 narrow deliveries" })
        try await helper.transaction { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(oldSchema)"), logger: helper.logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(oldSchema)"), logger: helper.logger)
            try await connection.query(
                "CREATE TABLE herald_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL)",
                logger: helper.logger)
            for migration in PostgresSchema.migrations[..<before] {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: helper.logger)
                }
                try await connection.query(
                    "INSERT INTO herald_migrations (name, applied_at) VALUES (\(migration.name), now())",
                    logger: helper.logger)
            }
            try await connection.query(
                """
                INSERT INTO apps (id, name, bundle_id, environment, endpoint, auth_kind, sealed_credentials,
                    publishable_key, created_at, updated_at)
                VALUES ('old-app', 'Old', 'com.example.old', 'development', 'https://127.0.0.1:1', 'token',
                    '\\x00', 'pk_old', now(), now())
                """, logger: helper.logger)
            try await connection.query(
                """
                INSERT INTO notifications (id, app_id, target, payload, push_type, send_at, targeted, created_at)
                VALUES ('second', 'old-app', 'all', '{}', 'alert', now(), 1, now()),
                    ('first', 'old-app', 'all', '{}', 'alert', now(), 1, now())
                """, logger: helper.logger)
            try await connection.query(
                """
                INSERT INTO deliveries (id, notification_id, app_id, token, state, attempts, not_before, status,
                    result_at)
                VALUES (5, 'first', 'old-app', 'aa', 'accepted', 1, now(), 200, now()),
                    (7, 'first', 'old-app', 'T1', 'accepted', 1, now(), 200, now()),
                    (9, 'second', 'old-app', 'bb', 'accepted', 1, now(), 200, now())
                """, logger: helper.logger)
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
}
