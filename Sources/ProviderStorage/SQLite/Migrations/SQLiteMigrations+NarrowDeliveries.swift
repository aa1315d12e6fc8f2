import GRDB

/// v12: notifications and deliveries copied into their narrow form.
extension SQLiteSchema {
    /// "v12 narrow deliveries"; PostgreSQL's "v16 narrow deliveries".
    static func v12NarrowDeliveries(_ db: Database) throws {
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
}
