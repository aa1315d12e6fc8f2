/// The migrations from v2 to v15: each adds an index, a table, a column or a setting to the first tables.
extension PostgresSchema {
    /// "v2 notification counters"; SQLite's "v2 notification counters".
    static let v2NotificationCounters: [String] = [
        """
        CREATE TABLE notification_counters (
            notification_id text NOT NULL,
            name text NOT NULL,
            reason text NOT NULL DEFAULT '',
            n bigint NOT NULL,
            PRIMARY KEY (notification_id, name, reason)
        )
        """,
        """
        INSERT INTO notification_counters (notification_id, name, reason, n)
        SELECT notification_id, state, CASE state WHEN 'rejected' THEN coalesce(reason, '') ELSE '' END,
            count(*)
        FROM deliveries WHERE state IN ('accepted', 'rejected') GROUP BY 1, 2, 3
        """,
        """
        INSERT INTO notification_counters (notification_id, name, reason, n)
        SELECT notification_id, c.name, '', count(*)
        FROM deliveries d CROSS JOIN LATERAL (VALUES
            ('delivered', d.delivered_at IS NOT NULL), ('displayed', d.displayed_at IS NOT NULL),
            ('opened', d.opened_at IS NOT NULL), ('dismissed', d.dismissed_at IS NOT NULL),
            ('replies', d.reply IS NOT NULL)) AS c(name, present)
        WHERE c.present GROUP BY 1, 2
        """,
        // Reports no longer count deliveries by state: one index fewer to update twice per delivery. The
        // deliveries in flight are counted on the small index of leased rows.
        "DROP INDEX deliveries_notification",
        "DROP INDEX deliveries_leased",
        "CREATE INDEX deliveries_leased ON deliveries(lease_until, notification_id) WHERE state = 'leased'",
    ]

    /// "v3 no statistics on lease owners"; PostgreSQL only.
    /// The owner of a lease is a different value for every process and changes with every lease: statistics
    /// taken of it describe a moment long past. Taken right after a fan-out (all NULL), they made the planner
    /// expect one row per batch and join each recorded batch against itself row by row (seconds per batch).
    /// Without them it estimates a plain fraction of the table and walks the primary key.
    static let v3NoStatisticsOnLeaseOwners: [String] = [
        "ALTER TABLE deliveries ALTER COLUMN lease_owner SET STATISTICS 0"
    ]

    /// "v4 provider heartbeats"; PostgreSQL only.
    /// Every process says it is alive every second; the leases of one silent for five seconds go back to the
    /// queue then, instead of when they run out (30 s).
    static let v4ProviderHeartbeats: [String] = [
        "CREATE TABLE provider_heartbeats (owner text PRIMARY KEY, seen_at timestamptz NOT NULL)"
    ]

    /// "v5 deliveries by notification"; SQLite's "v3 deliveries by notification".
    /// The console and `GET /v1/notifications/{id}/deliveries` list a notification's deliveries. The index
    /// holds neither state nor times, so sending and recording never update it.
    static let v5DeliveriesByNotification: [String] = [
        "CREATE INDEX deliveries_by_notification ON deliveries(notification_id, id)"
    ]

    /// "v6 deactivated devices"; SQLite's "v4 deactivated devices".
    /// `GET /v1/devices?active=false` (the console's Devices page): the deactivated tokens of an app are few
    /// among many, and this small index holds only them.
    static let v6DeactivatedDevices: [String] = [
        "CREATE INDEX devices_inactive ON devices(app_id, token) WHERE NOT active"
    ]

    /// "v7 responses"; SQLite's "v5 responses".
    /// `GET /v1/notifications/{id}/responses` pages through the answers (taps, dismissals, actions), which are
    /// few among a broadcast's delivered and displayed reports.
    static let v7Responses: [String] = [
        """
        CREATE INDEX feedback_responses ON feedback(notification_id, id)
        WHERE event IN ('opened', 'dismissed', 'action')
        """
    ]

    /// "v8 live activities"; SQLite's "v6 live activities".
    /// Live Activities: the tokens an app's activities report (push-to-start per attributes type,
    /// update tokens per activity), the broadcast channels the provider made for the app at APNs, and where
    /// the app's channel management requests go. `budget_*` counts an activity's priority-10 pushes in the
    /// current hour, which is what iOS budgets.
    static let v8LiveActivities: [String] = [
        "ALTER TABLE apps ADD COLUMN channel_endpoint text",
        """
        CREATE TABLE activity_tokens (
            app_id text NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
            token text NOT NULL,
            kind text NOT NULL,
            attributes_type text NOT NULL,
            activity_id text,
            user_id text,
            device_token text,
            budget_hour_start timestamptz,
            budget_used bigint NOT NULL DEFAULT 0,
            registered_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            PRIMARY KEY (app_id, token)
        )
        """,
        "CREATE INDEX activity_tokens_by_type ON activity_tokens(app_id, attributes_type, kind, user_id)",
        "CREATE INDEX activity_tokens_by_activity ON activity_tokens(app_id, activity_id)",
        """
        CREATE TABLE channels (
            app_id text NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
            channel_id text NOT NULL,
            name text,
            storage_policy bigint NOT NULL,
            created_at timestamptz NOT NULL,
            PRIMARY KEY (app_id, channel_id)
        )
        """,
    ]

    /// "v9 device tags as on SQLite"; PostgreSQL only.
    /// The schemas drifted apart: SQLite's `devices.tags` was always `NOT NULL DEFAULT '[]'`; here it was NULL
    /// until a registration gave tags. StoreContractTests now compares both schemas' columns.
    static let v9DeviceTagsAsOnSQLite: [String] = [
        "UPDATE devices SET tags = '[]' WHERE tags IS NULL",
        "ALTER TABLE devices ALTER COLUMN tags SET DEFAULT '[]', ALTER COLUMN tags SET NOT NULL",
    ]

    /// "v10 key fingerprint"; SQLite's "v7 key fingerprint".
    /// The public fingerprint of an app's signing key, so a replaced key can be told from the old one.
    static let v10KeyFingerprint: [String] = ["ALTER TABLE apps ADD COLUMN key_fingerprint text"]

    /// "v11 delivery outcomes"; SQLite's "v8 delivery outcomes".
    /// What the device said became of a delivery beyond delivered and displayed.
    static let v11DeliveryOutcomes: [String] = [
        "ALTER TABLE deliveries ADD COLUMN outcome text",
        "ALTER TABLE deliveries ADD COLUMN outcome_detail text",
    ]

    /// "v12 channel deliveries"; SQLite's "v9 channel deliveries".
    /// A broadcast's delivery names its channel in a column of its own, no longer as `channel:<id>` in the
    /// token column (whose value it had until now; its token is empty).
    static let v12ChannelDeliveries: [String] = [
        "ALTER TABLE deliveries ADD COLUMN channel_id text",
        "UPDATE deliveries SET channel_id = substring(token from 9), token = '' WHERE token LIKE 'channel:%'",
    ]

    /// "v13 receipts"; SQLite's "v10 receipts".
    /// A report sent again (the device did not hear the answer) is found by its delivery, event and time, and
    /// recorded once.
    static let v13Receipts: [String] = [
        "CREATE INDEX feedback_by_delivery ON feedback(delivery_id)",
        // When a device of the app last reported (to the hour): none ever means the app has no HeraldKit.
        "ALTER TABLE apps ADD COLUMN last_receipt_at timestamptz",
    ]

    /// "v14 lifecycle and retention"; SQLite's "v11 lifecycle and retention".
    /// An app's sending paused; how long its records are kept (days; NULL: the provider's default);
    /// a notification cancelled; the range of delivery numbers pruned from it and when, so `herald why` for a
    /// pruned apns-id can say so.
    static let v14LifecycleAndRetention: [String] = [
        "ALTER TABLE apps ADD COLUMN paused_at timestamptz",
        "ALTER TABLE apps ADD COLUMN retention_deliveries bigint",
        "ALTER TABLE apps ADD COLUMN retention_traces bigint",
        "ALTER TABLE apps ADD COLUMN retention_responses bigint",
        "ALTER TABLE notifications ADD COLUMN cancelled_at timestamptz",
        "ALTER TABLE notifications ADD COLUMN pruned_at timestamptz",
        "ALTER TABLE notifications ADD COLUMN pruned_first bigint",
        "ALTER TABLE notifications ADD COLUMN pruned_last bigint",
        "CREATE INDEX notifications_unpruned ON notifications(app_id, created_at) WHERE pruned_at IS NULL",
        "CREATE INDEX notifications_pruned ON notifications(pruned_last) WHERE pruned_last IS NOT NULL",
        "CREATE INDEX feedback_at ON feedback(at)",
    ]

    /// "v15 deliveries vacuumed often"; PostgreSQL only.
    /// Every delivery is written three times (queued, leased, answered) and pruned after its retention: with
    /// the default (vacuum once a fifth of the table is dead) a 3-million-row table was vacuumed every three
    /// days of a daily 100,000-device broadcast, and grew between. Vacuumed at 2% dead, freed space is reused
    /// by the next day's rows.
    static let v15DeliveriesVacuumedOften: [String] = [
        "ALTER TABLE deliveries SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02)",
        "ALTER TABLE feedback SET (autovacuum_vacuum_scale_factor = 0.02)",
    ]
}
