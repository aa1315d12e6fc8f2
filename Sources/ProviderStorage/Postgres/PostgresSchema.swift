/// The provider's tables on PostgreSQL: the same tables as ``SQLiteSchema`` in PostgreSQL's types (times are
/// `timestamptz`, bytes `bytea`, flags `boolean`). Each migration is a list of statements applied once, in order,
/// under an advisory lock so that processes starting together do not race; a released migration is never edited.
package enum PostgresSchema {
    /// A token kept as bytes (`deliveries.token_bytes`): lower-case hex digits, two for each byte.
    static let hexTokenPattern = "^([0-9a-f][0-9a-f])+$"

    /// A delivery's token as text, from the row of `deliveries` named `alias`: its bytes in hex, or its text.
    static func deliveryToken(_ alias: String) -> String {
        "coalesce(encode(\(alias).token_bytes, 'hex'), \(alias).token)"
    }

    /// A lower-case UUID, as APNs writes an `apns-unique-id` (and PostgreSQL writes a uuid back): such a text is kept
    /// as a uuid.
    static let uuidPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

    /// Every migration by the name it is recorded under, in the order applied; a change is a new migration added at
    /// the end. Each one's declaration names SQLite's migration of the same change (``SQLiteSchema/migrations``).
    package static let migrations: [(name: String, statements: [String])] = [
        ("v1", v1Tables),
        ("v2 notification counters", v2NotificationCounters),
        ("v3 no statistics on lease owners", v3NoStatisticsOnLeaseOwners),
        ("v4 provider heartbeats", v4ProviderHeartbeats),
        ("v5 deliveries by notification", v5DeliveriesByNotification),
        ("v6 deactivated devices", v6DeactivatedDevices),
        ("v7 responses", v7Responses),
        ("v8 live activities", v8LiveActivities),
        ("v9 device tags as on SQLite", v9DeviceTagsAsOnSQLite),
        ("v10 key fingerprint", v10KeyFingerprint),
        ("v11 delivery outcomes", v11DeliveryOutcomes),
        ("v12 channel deliveries", v12ChannelDeliveries),
        ("v13 receipts", v13Receipts),
        ("v14 lifecycle and retention", v14LifecycleAndRetention),
        ("v15 deliveries vacuumed often", v15DeliveriesVacuumedOften),
        ("v16 narrow deliveries", v16NarrowDeliveries),
        ("v17 deliveries written once", v17DeliveriesWrittenOnce),
        ("v18 delivery ranges", v18DeliveryRanges),
        ("v19 webhook outbox", v19WebhookOutbox),
        ("v20 pause reason", v20PauseReason),
        ("v21 provider settings", v21ProviderSettings),
        ("v22 notification trace", v22NotificationTrace),
        ("v23 console sessions", v23ConsoleSessions),
        ("v24 webhook batches", v24WebhookBatches),
        ("v25 key scopes", v25KeyScopes),
        ("v26 audit log", v26AuditLog),
        ("v27 notification languages", v27NotificationLanguages),
        ("v28 quiet hours", v28QuietHours),
        ("v29 variables", v29Variables),
        ("v30 frequency caps", v30FrequencyCaps),
        ("v31 user attributes", v31UserAttributes),
    ]
}
