import GRDB

/// The provider's tables, created and upgraded by GRDB's migrator. Times are seconds since 1970 (REAL). A migration,
/// once released, is never edited: a change is a new migration.
package enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE apps (
                        id TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        bundle_id TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        endpoint TEXT NOT NULL,
                        ca_pem TEXT,
                        auth_kind TEXT NOT NULL,
                        team_id TEXT,
                        key_id TEXT,
                        sealed_credentials BLOB NOT NULL,
                        publishable_key TEXT NOT NULL UNIQUE,
                        webhook_url TEXT,
                        rate_limit INTEGER NOT NULL DEFAULT 0,
                        categories TEXT NOT NULL DEFAULT '{}',
                        categories_version INTEGER NOT NULL DEFAULT 1,
                        created_at REAL NOT NULL,
                        updated_at REAL NOT NULL
                    );
                    CREATE TABLE api_keys (
                        id TEXT PRIMARY KEY,
                        app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                        key_hash TEXT NOT NULL UNIQUE,
                        created_at REAL NOT NULL
                    );
                    CREATE TABLE devices (
                        app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                        token TEXT NOT NULL,
                        user_id TEXT,
                        tags TEXT NOT NULL DEFAULT '[]',
                        locale TEXT,
                        time_zone TEXT,
                        app_version TEXT,
                        public_key TEXT,
                        active INTEGER NOT NULL DEFAULT 1,
                        deactivated_at REAL,
                        deactivation_reason TEXT,
                        registered_at REAL NOT NULL,
                        updated_at REAL NOT NULL,
                        UNIQUE (app_id, token)
                    );
                    CREATE INDEX devices_user ON devices(app_id, user_id);
                    CREATE TABLE device_tags (
                        app_id TEXT NOT NULL,
                        token TEXT NOT NULL,
                        tag TEXT NOT NULL,
                        PRIMARY KEY (app_id, tag, token)
                    );
                    CREATE INDEX device_tags_token ON device_tags(app_id, token);
                    CREATE TABLE notifications (
                        id TEXT PRIMARY KEY,
                        app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                        target TEXT NOT NULL,
                        payload BLOB NOT NULL,
                        push_type TEXT NOT NULL,
                        priority INTEGER,
                        expiration INTEGER,
                        collapse_id TEXT,
                        encrypted_key TEXT,
                        encrypted BLOB,
                        send_at REAL NOT NULL,
                        daily_at TEXT,
                        targeted INTEGER NOT NULL DEFAULT 0,
                        created_at REAL NOT NULL
                    );
                    CREATE INDEX notifications_app ON notifications(app_id, created_at);
                    CREATE TABLE deliveries (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        notification_id TEXT NOT NULL,
                        app_id TEXT NOT NULL,
                        token TEXT NOT NULL,
                        occurrence TEXT NOT NULL DEFAULT '',
                        state TEXT NOT NULL DEFAULT 'queued',
                        attempts INTEGER NOT NULL DEFAULT 0,
                        not_before REAL NOT NULL,
                        lease_owner TEXT,
                        lease_until REAL,
                        status INTEGER,
                        reason TEXT,
                        apns_unique_id TEXT,
                        result_at REAL,
                        delivered_at REAL,
                        displayed_at REAL,
                        opened_at REAL,
                        dismissed_at REAL,
                        action TEXT,
                        reply TEXT
                    );
                    CREATE INDEX deliveries_queued ON deliveries(not_before, id) WHERE state = 'queued';
                    CREATE INDEX deliveries_leased ON deliveries(lease_until) WHERE state = 'leased';
                    CREATE INDEX deliveries_notification ON deliveries(notification_id, state);
                    CREATE UNIQUE INDEX deliveries_occurrence ON deliveries(notification_id, token, occurrence)
                        WHERE occurrence != '';
                    CREATE TABLE feedback (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        delivery_id INTEGER NOT NULL,
                        notification_id TEXT NOT NULL,
                        event TEXT NOT NULL,
                        action TEXT,
                        reply TEXT,
                        at REAL NOT NULL
                    );
                    CREATE INDEX feedback_notification ON feedback(notification_id);
                    """)
        }
        migrator.registerMigration("v2 notification counters") { db in
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
        migrator.registerMigration("v3 deliveries by notification") { db in
            // The console and `GET /v1/notifications/{id}/deliveries` list a notification's deliveries. The index
            // holds neither state nor times, so sending and recording never update it.
            try db.execute(sql: "CREATE INDEX deliveries_by_notification ON deliveries(notification_id, id)")
        }
        migrator.registerMigration("v4 deactivated devices") { db in
            // `GET /v1/devices?active=false` (the console's Devices page): the deactivated tokens of an app are few
            // among many, and this small index holds only them.
            try db.execute(sql: "CREATE INDEX devices_inactive ON devices(app_id, token) WHERE active = 0")
        }
        migrator.registerMigration("v5 responses") { db in
            // `GET /v1/notifications/{id}/responses` pages through the answers (taps, dismissals, actions), which are
            // few among a broadcast's delivered and displayed reports.
            try db.execute(
                sql: """
                    CREATE INDEX feedback_responses ON feedback(notification_id, id)
                    WHERE event IN ('opened', 'dismissed', 'action')
                    """)
        }
        migrator.registerMigration("v6 live activities") { db in
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
        migrator.registerMigration("v7 key fingerprint") { db in
            // The public fingerprint of an app's signing key, so a replaced key can be told from the old one.
            try db.execute(sql: "ALTER TABLE apps ADD COLUMN key_fingerprint TEXT")
        }
        migrator.registerMigration("v8 delivery outcomes") { db in
            // What the device said became of a delivery beyond delivered and displayed: the outcome codes
            // it reported (`notAuthorized`, `extensionTimeout`, ...), comma-separated, and their details.
            try db.execute(
                sql: """
                    ALTER TABLE deliveries ADD COLUMN outcome TEXT;
                    ALTER TABLE deliveries ADD COLUMN outcome_detail TEXT;
                    """)
        }
        migrator.registerMigration("v9 channel deliveries") { db in
            // A broadcast's delivery names its channel in a column of its own, no longer as `channel:<id>` in the
            // token column (whose value it had until now; its token is empty).
            try db.execute(
                sql: """
                    ALTER TABLE deliveries ADD COLUMN channel_id TEXT;
                    UPDATE deliveries SET channel_id = substr(token, 9), token = '' WHERE token LIKE 'channel:%';
                    """)
        }
        migrator.registerMigration("v10 receipts") { db in
            // A report sent again (the device did not hear the answer) is found by its delivery, event and time, and
            // recorded once.
            try db.execute(sql: "CREATE INDEX feedback_by_delivery ON feedback(delivery_id)")
            // When a device of the app last reported (to the hour): none ever means the app has no HeraldKit.
            try db.execute(sql: "ALTER TABLE apps ADD COLUMN last_receipt_at REAL")
        }
        migrator.registerMigration("v11 lifecycle and retention") { db in
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
        migrator.registerMigration("v12 narrow deliveries") { db in
            // A delivery names its notification by the notification's number (an integer) instead of its id (a
            // 36-character UUID), no longer repeats the app's id, which its notification has, and keeps its token
            // and `apns-unique-id` as bytes where they are hex and a UUID (``CompactText``): after a 1,000,000-device
            // broadcast, 124 bytes a delivery with its indexes instead of 300. SQLite changes a column only by
            // copying the table, so both tables are copied; a delivery keeps its number (its `apns-id` is made from
            // it) and the numbers already given are never given again. A notification's number is never given
            // again either (AUTOINCREMENT): deliveries left by a deleted notification must not become a new one's.
            CompactText.register(in: db)
            let lastDelivery =
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'deliveries'") ?? 0
            try db.execute(
                sql: """
                    CREATE TABLE notifications_v12 (
                        number INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                        target TEXT NOT NULL,
                        payload BLOB NOT NULL,
                        push_type TEXT NOT NULL,
                        priority INTEGER,
                        expiration INTEGER,
                        collapse_id TEXT,
                        encrypted_key TEXT,
                        encrypted BLOB,
                        send_at REAL NOT NULL,
                        daily_at TEXT,
                        targeted INTEGER NOT NULL DEFAULT 0,
                        created_at REAL NOT NULL,
                        cancelled_at REAL,
                        pruned_at REAL,
                        pruned_first INTEGER,
                        pruned_last INTEGER
                    );
                    INSERT INTO notifications_v12 (id, app_id, target, payload, push_type, priority, expiration,
                        collapse_id, encrypted_key, encrypted, send_at, daily_at, targeted, created_at, cancelled_at,
                        pruned_at, pruned_first, pruned_last)
                    SELECT id, app_id, target, payload, push_type, priority, expiration, collapse_id, encrypted_key,
                        encrypted, send_at, daily_at, targeted, created_at, cancelled_at, pruned_at, pruned_first,
                        pruned_last
                    FROM notifications ORDER BY created_at, rowid;
                    CREATE TABLE deliveries_v12 (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        notification INTEGER NOT NULL,
                        token TEXT NOT NULL,
                        occurrence TEXT NOT NULL DEFAULT '',
                        state TEXT NOT NULL DEFAULT 'queued',
                        attempts INTEGER NOT NULL DEFAULT 0,
                        not_before REAL NOT NULL,
                        lease_owner TEXT,
                        lease_until REAL,
                        status INTEGER,
                        reason TEXT,
                        apns_unique_id TEXT,
                        result_at REAL,
                        delivered_at REAL,
                        displayed_at REAL,
                        opened_at REAL,
                        dismissed_at REAL,
                        action TEXT,
                        reply TEXT,
                        outcome TEXT,
                        outcome_detail TEXT,
                        channel_id TEXT
                    );
                    INSERT INTO deliveries_v12 (id, notification, token, occurrence, state, attempts, not_before,
                        lease_owner, lease_until, status, reason, apns_unique_id, result_at, delivered_at, displayed_at,
                        opened_at, dismissed_at, action, reply, outcome, outcome_detail, channel_id)
                    SELECT d.id, n.number, compact_token(d.token), d.occurrence, d.state, d.attempts, d.not_before,
                        d.lease_owner, d.lease_until, d.status, d.reason, compact_unique_id(d.apns_unique_id),
                        d.result_at, d.delivered_at,
                        d.displayed_at, d.opened_at, d.dismissed_at, d.action, d.reply, d.outcome, d.outcome_detail,
                        d.channel_id
                    FROM deliveries d JOIN notifications_v12 n ON n.id = d.notification_id ORDER BY d.id;
                    DROP TABLE deliveries;
                    DROP TABLE notifications;
                    ALTER TABLE notifications_v12 RENAME TO notifications;
                    ALTER TABLE deliveries_v12 RENAME TO deliveries;
                    CREATE INDEX notifications_app ON notifications(app_id, created_at);
                    CREATE INDEX notifications_unpruned ON notifications(app_id, created_at) WHERE pruned_at IS NULL;
                    CREATE INDEX notifications_pruned ON notifications(pruned_last) WHERE pruned_last IS NOT NULL;
                    CREATE INDEX deliveries_queued ON deliveries(not_before, id) WHERE state = 'queued';
                    CREATE INDEX deliveries_leased ON deliveries(lease_until, notification) WHERE state = 'leased';
                    CREATE INDEX deliveries_by_notification ON deliveries(notification, id);
                    CREATE UNIQUE INDEX deliveries_occurrence ON deliveries(notification, token, occurrence)
                        WHERE occurrence != '';
                    """)
            try db.execute(
                sql: """
                    INSERT INTO sqlite_sequence (name, seq) SELECT 'deliveries', 0
                        WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'deliveries');
                    UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'deliveries';
                    """, arguments: [lastDelivery])
        }
        registerWebhookOutbox(in: &migrator)
        return migrator
    }
}
