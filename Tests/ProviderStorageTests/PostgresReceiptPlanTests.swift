import Foundation
import PostgresNIO
import TestPacing
import Testing

@testable import ProviderStorage

/// Runs when `HERALD_TEST_POSTGRES` names a PostgreSQL database (as `.ci/run` sets it).
@Suite(
    "PostgreSQL: a batch of receipts reads its deliveries' feedback rows by index, statistics or not", .startsServers,
    .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
struct PostgresReceiptPlanTests {
    @Test("with 50,000 feedback rows and no statistics on them, reading a batch's 100 deliveries scans nothing")
    func feedbackRowsAreLookedUp() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        try await StoreFixture.with(.postgres(url: url)) { fixture in
            let store = try #require(fixture.store as? PostgresStore)
            // A table that filled during a storm, before autovacuum measured it.
            _ = try await store.rows("ALTER TABLE feedback SET (autovacuum_enabled = false)")
            _ = try await store.rows(
                """
                INSERT INTO feedback (delivery_id, notification_id, event, at)
                SELECT g / 2, 'n', 'delivered', now() FROM generate_series(1, 50000) g
                """)
            let ids = (1...100).map { Int64($0 * 223) }
            let literal = "'{\(ids.map(String.init).joined(separator: ","))}'"
            let logger = store.logger
            // The statement is prepared: after five runs PostgreSQL may plan it once for any IDs (a generic plan), so
            // both kinds of plan are read.
            let (plans, rows) = try await store.transaction { connection in
                _ = try await connection.rows(
                    PostgresQuery(unsafeSQL: "PREPARE receipt_feedback(bigint[]) AS " + ReceiptStatements.Feedback.sql),
                    logger)
                var plans: [String: String] = [:]
                for mode in ["force_custom_plan", "force_generic_plan"] {
                    _ = try await connection.rows(
                        PostgresQuery(unsafeSQL: "SET LOCAL plan_cache_mode = " + mode), logger)
                    plans[mode] = try await connection.rows(
                        PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE receipt_feedback(\(literal))"), logger
                    ).map { try $0.decode(String.self) }.joined(separator: "\n")
                }
                _ = try await connection.rows("DEALLOCATE receipt_feedback", logger)
                let rows = try await connection.rows(ReceiptStatements.Feedback(ids: ids), logger)
                    .map { try $0.decode((Int64, Int64).self) }
                return (plans, rows)
            }
            // Before: `delivery_id = ANY($1)`, "Seq Scan on feedback", 50,000 rows read to find 200.
            for (mode, plan) in plans { #expect(!plan.contains("Seq Scan on feedback"), "\(mode): \(plan)") }
            #expect(plans.count == 2)
            #expect(rows.count == 200 && Set(rows.map(\.1)) == Set(ids))
            #expect(rows.map(\.0) == rows.map(\.0).sorted(), "in row order")
        }
    }
}
