import GRDB

/// The provider's tables, created and upgraded by GRDB's migrator. Times are seconds since 1970 (REAL). A migration,
/// once released, is never edited: a change is a new migration, added at the end of ``migrations``. Each migration's
/// body names PostgreSQL's migration of the same change (``PostgresSchema/migrations``).
package enum SQLiteSchema {
    /// Every migration by the name it is recorded under, in the order applied.
    static let migrations: [(name: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1", v1Tables),
        ("v2 notification counters", v2NotificationCounters),
        ("v3 deliveries by notification", v3DeliveriesByNotification),
        ("v4 deactivated devices", v4DeactivatedDevices),
        ("v5 responses", v5Responses),
        ("v6 live activities", v6LiveActivities),
        ("v7 key fingerprint", v7KeyFingerprint),
        ("v8 delivery outcomes", v8DeliveryOutcomes),
        ("v9 channel deliveries", v9ChannelDeliveries),
        ("v10 receipts", v10Receipts),
        ("v11 lifecycle and retention", v11LifecycleAndRetention),
        ("v12 narrow deliveries", v12NarrowDeliveries),
        ("v13 webhook outbox", v13WebhookOutbox),
        ("v14 pause reason", v14PauseReason),
        ("v15 provider settings", v15ProviderSettings),
        ("v16 notification trace", v16NotificationTrace),
        ("v17 console sessions", v17ConsoleSessions),
        ("v18 webhook batches", v18WebhookBatches),
        ("v19 key scopes", v19KeyScopes),
        ("v20 audit log", v20AuditLog),
        ("v21 notification languages", v21NotificationLanguages),
        ("v22 quiet hours", v22QuietHours),
        ("v23 variables", v23Variables),
        ("v24 frequency caps", v24FrequencyCaps),
        ("v25 user attributes", v25UserAttributes),
    ]

    /// A migrator that applies ``migrations`` not applied yet.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.name, migrate: migration.migrate)
        }
        return migrator
    }
}
