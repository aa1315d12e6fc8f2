import GRDB

/// The migrations from v2 to v11: each adds an index, a table or a column to the first tables.
extension SQLiteSchema {
    /// "v2 notification counters"; PostgreSQL's "v2 notification counters".
    static func v2NotificationCounters(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE notification_counters (
                    notification_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    reason TEXT NOT NULL DEFAULT '',
                    n INTEGER NOT NULL,
                    PRIMARY KEY (notification_id, name, reason)
                ) WITHOUT ROWID;
                INSERT INTO notification_counters (notification_id, name, reason, n)
                    SELECT notification_id, state, CASE state WHEN 'rejected' THEN coalesce(reason, '') ELSE '' END,
                        count(*)
                    FROM deliveries WHERE state IN ('accepted', 'rejected') GROUP BY 1, 2, 3;
                INSERT INTO notification_counters (notification_id, name, reason, n)
                    SELECT notification_id, 'delivered', '', count(*) FROM deliveries
                    WHERE delivered_at IS NOT NULL GROUP BY 1;
                INSERT INTO notification_counters (notification_id, name, reason, n)
                    SELECT notification_id, 'displayed', '', count(*) FROM deliveries
                    WHERE displayed_at IS NOT NULL GROUP BY 1;
                INSERT INTO notification_counters (notification_id, name, reason, n)
                    SELECT notification_id, 'opened', '', count(*) FROM deliveries
                    WHERE opened_at IS NOT NULL GROUP BY 1;
                INSERT INTO notification_counters (notification_id, name, reason, n)
                    SELECT notification_id, 'dismissed', '', count(*) FROM deliveries
                    WHERE dismissed_at IS NOT NULL GROUP BY 1;
                INSERT INTO notification_counters (notification_id, name, reason, n)
                    SELECT notification_id, 'replies', '', count(*) FROM deliveries
                    WHERE reply IS NOT NULL GROUP BY 1;
                -- Reports no longer count deliveries by state: one index fewer to update twice per delivery.
                -- The deliveries in flight are counted on the small index of leased rows.
                DROP INDEX deliveries_notification;
                DROP INDEX deliveries_leased;
                CREATE INDEX deliveries_leased ON deliveries(lease_until, notification_id) WHERE state = 'leased';
                """)
    }

    /// "v3 deliveries by notification"; PostgreSQL's "v5 deliveries by notification".
    static func v3DeliveriesByNotification(_ db: Database) throws {
        // The console and `GET /v1/notifications/{id}/deliveries` list a notification's deliveries. The index
        // holds neither state nor times, so sending and recording never update it.
        try db.execute(sql: "CREATE INDEX deliveries_by_notification ON deliveries(notification_id, id)")
    }

    /// "v4 deactivated devices"; PostgreSQL's "v6 deactivated devices".
    static func v4DeactivatedDevices(_ db: Database) throws {
        // `GET /v1/devices?active=false` (the console's Devices page): the deactivated tokens of an app are few
        // among many, and this small index holds only them.
        try db.execute(sql: "CREATE INDEX devices_inactive ON devices(app_id, token) WHERE active = 0")
    }

    /// "v5 responses"; PostgreSQL's "v7 responses".
    static func v5Responses(_ db: Database) throws {
        // `GET /v1/notifications/{id}/responses` pages through the answers (taps, dismissals, actions), which are
        // few among a broadcast's delivered and displayed reports.
        try db.execute(
            sql: """
                CREATE INDEX feedback_responses ON feedback(notification_id, id)
                WHERE event IN ('opened', 'dismissed', 'action')
                """)
    }

    /// "v6 live activities"; PostgreSQL's "v8 live activities".
    static func v6LiveActivities(_ db: Database) throws {
        // Live Activities: the tokens an app's activities report (push-to-start per attributes type,
        // update tokens per activity), the broadcast channels the provider made for the app at APNs, and where
        // the app's channel management requests go. `budget_*` counts an activity's priority-10 pushes in the
        // current hour, which is what iOS budgets.
        try db.execute(
            sql: """
                ALTER TABLE apps ADD COLUMN channel_endpoint TEXT;
                CREATE TABLE activity_tokens (
                    app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                    token TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    attributes_type TEXT NOT NULL,
                    activity_id TEXT,
                    user_id TEXT,
                    device_token TEXT,
                    budget_hour_start REAL,
                    budget_used INTEGER NOT NULL DEFAULT 0,
                    registered_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    PRIMARY KEY (app_id, token)
                );
                CREATE INDEX activity_tokens_by_type ON activity_tokens(app_id, attributes_type, kind, user_id);
                CREATE INDEX activity_tokens_by_activity ON activity_tokens(app_id, activity_id);
                CREATE TABLE channels (
                    app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                    channel_id TEXT NOT NULL,
                    name TEXT,
                    storage_policy INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (app_id, channel_id)
                );
                """)
    }

    /// "v7 key fingerprint"; PostgreSQL's "v10 key fingerprint".
    static func v7KeyFingerprint(_ db: Database) throws {
        // The public fingerprint of an app's signing key, so a replaced key can be told from the old one.
        try db.execute(sql: "ALTER TABLE apps ADD COLUMN key_fingerprint TEXT")
    }

    /// "v8 delivery outcomes"; PostgreSQL's "v11 delivery outcomes".
    static func v8DeliveryOutcomes(_ db: Database) throws {
        // What the device said became of a delivery beyond delivered and displayed: the outcome codes
        // it reported (`notAuthorized`, `extensionTimeout`, ...), comma-separated, and their details.
        try db.execute(
            sql: """
                ALTER TABLE deliveries ADD COLUMN outcome TEXT;
                ALTER TABLE deliveries ADD COLUMN outcome_detail TEXT;
                """)
    }

    /// "v9 channel deliveries"; PostgreSQL's "v12 channel deliveries".
    static func v9ChannelDeliveries(_ db: Database) throws {
        // A broadcast's delivery names its channel in a column of its own, no longer as `channel:<id>` in the
        // token column (whose value it had until now; its token is empty).
        try db.execute(
            sql: """
                ALTER TABLE deliveries ADD COLUMN channel_id TEXT;
                UPDATE deliveries SET channel_id = substr(token, 9), token = '' WHERE token LIKE 'channel:%';
                """)
    }

    /// "v10 receipts"; PostgreSQL's "v13 receipts".
    static func v10Receipts(_ db: Database) throws {
        // A report sent again (the device did not hear the answer) is found by its delivery, event and time, and
        // recorded once.
        try db.execute(sql: "CREATE INDEX feedback_by_delivery ON feedback(delivery_id)")
        // When a device of the app last reported (to the hour): none ever means the app has no HeraldKit.
        try db.execute(sql: "ALTER TABLE apps ADD COLUMN last_receipt_at REAL")
    }

    /// "v11 lifecycle and retention"; PostgreSQL's "v14 lifecycle and retention".
    static func v11LifecycleAndRetention(_ db: Database) throws {
        // An app's sending paused; how long its records are kept (days; NULL: the provider's default);
        // a notification cancelled; the range of delivery numbers pruned from it and when, so `herald why` for a
        // pruned apns-id can say so.
        try db.execute(
            sql: """
                ALTER TABLE apps ADD COLUMN paused_at REAL;
                ALTER TABLE apps ADD COLUMN retention_deliveries INTEGER;
                ALTER TABLE apps ADD COLUMN retention_traces INTEGER;
                ALTER TABLE apps ADD COLUMN retention_responses INTEGER;
                ALTER TABLE notifications ADD COLUMN cancelled_at REAL;
                ALTER TABLE notifications ADD COLUMN pruned_at REAL;
                ALTER TABLE notifications ADD COLUMN pruned_first INTEGER;
                ALTER TABLE notifications ADD COLUMN pruned_last INTEGER;
                CREATE INDEX notifications_unpruned ON notifications(app_id, created_at) WHERE pruned_at IS NULL;
                CREATE INDEX notifications_pruned ON notifications(pruned_last) WHERE pruned_last IS NOT NULL;
                CREATE INDEX feedback_at ON feedback(at);
                """)
    }
}
