import GRDB
import Testing

@testable import ProviderStorage

/// The plans SQLite chooses for the reads that run while a broadcast's receipts pour in: each reads a small index,
/// never every delivery or every report of the notification.
@Suite("SQLite's query plans for a notification's report")
struct SQLiteQueryPlanTests {
    /// The plan of `sql` with `arguments` on an empty database of the current schema, a line per step.
    private func plan(_ sql: String, _ arguments: StatementArguments) throws -> [String] {
        let queue = try DatabaseQueue()
        try SQLiteSchema.migrator.migrate(queue)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
        }
    }

    @Test("the count of deliveries in flight reads the index of leased rows, never every delivery of the notification")
    func inFlightCountUsesTheLeasedIndex() throws {
        let plan = try plan(SQLiteStore.inFlightSQL(count: 2), ["a", "b"])
        #expect(plan.contains { $0.contains("deliveries_leased") }, "\(plan)")
        #expect(!plan.contains { $0.contains("deliveries_by_notification") }, "\(plan)")
    }

    @Test("the count of action taps reads the index of responses, never every delivered and displayed report")
    func actionCountsUseTheResponsesIndex() throws {
        let plan = try plan(SQLiteStore.actionCountsSQL(count: 2), ["a", "b"])
        #expect(plan.contains { $0.contains("feedback_responses") }, "\(plan)")
        #expect(!plan.contains { $0.contains("feedback_notification") }, "\(plan)")
    }
}
