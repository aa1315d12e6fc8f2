import GRDB

/// The first migration: the tables the provider started with.
extension SQLiteSchema {
    /// "v1"; PostgreSQL's "v1".
    static func v1Tables(_ db: Database) throws {
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
}
