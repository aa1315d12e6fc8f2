import Testing

@testable import ProviderStorage

/// A database records each migration by its name: a released name that changed would be applied again on upgrade.
@Suite("The released migrations keep their names and order on both stores")
struct MigrationListTests {
    @Test("SQLite's migrations, in order")
    func sqlite() {
        #expect(
            SQLiteSchema.migrations.map(\.name) == [
                "v1", "v2 notification counters", "v3 deliveries by notification", "v4 deactivated devices",
                "v5 responses", "v6 live activities", "v7 key fingerprint", "v8 delivery outcomes",
                "v9 channel deliveries", "v10 receipts", "v11 lifecycle and retention", "v12 narrow deliveries",
                "v13 webhook outbox", "v14 pause reason", "v15 provider settings", "v16 notification trace",
                "v17 console sessions", "v18 webhook batches", "v19 key scopes", "v20 audit log",
                "v21 notification languages", "v22 quiet hours", "v23 variables", "v24 frequency caps",
                "v25 user attributes",
            ])
    }

    @Test("PostgreSQL's migrations, in order")
    func postgres() {
        #expect(
            PostgresSchema.migrations.map(\.name) == [
                "v1", "v2 notification counters", "v3 no statistics on lease owners", "v4 provider heartbeats",
                "v5 deliveries by notification", "v6 deactivated devices", "v7 responses", "v8 live activities",
                "v9 device tags as on SQLite", "v10 key fingerprint", "v11 delivery outcomes", "v12 channel deliveries",
                "v13 receipts", "v14 lifecycle and retention", "v15 deliveries vacuumed often", "v16 narrow deliveries",
                "v17 deliveries written once", "v18 delivery ranges", "v19 webhook outbox", "v20 pause reason",
                "v21 provider settings", "v22 notification trace", "v23 console sessions", "v24 webhook batches",
                "v25 key scopes", "v26 audit log", "v27 notification languages", "v28 quiet hours", "v29 variables",
                "v30 frequency caps", "v31 user attributes",
            ])
        #expect(PostgresSchema.migrations.allSatisfy { !$0.statements.isEmpty })
    }
}
