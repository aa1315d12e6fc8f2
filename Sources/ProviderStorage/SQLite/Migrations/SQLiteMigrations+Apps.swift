import GRDB

/// v14 on: what apps keep beyond their first columns, what every provider on the database shares, and the trace a
/// notification was created in.
extension SQLiteSchema {
    /// "v14 pause reason"; PostgreSQL's "v20 pause reason". Why the provider paused an app itself (APNs refused its
    /// credentials); NULL for an operator's pause.
    static func v14PauseReason(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE apps ADD COLUMN pause_reason TEXT")
    }
}

extension SQLiteSchema {
    /// "v15 provider settings"; PostgreSQL's "v21 provider settings". Settings every provider on the database shares
    /// (the admin token, sealed with the master key).
    static func v15ProviderSettings(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE provider_settings (name TEXT PRIMARY KEY, value BLOB NOT NULL)")
    }
}

extension SQLiteSchema {
    /// "v16 notification trace"; PostgreSQL's "v22 notification trace". The trace context (W3C `traceparent`) of the request that
    /// created a notification (when traces are exported), which its sends continue.
    static func v16NotificationTrace(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE notifications ADD COLUMN trace_context TEXT")
    }
}

extension SQLiteSchema {
    /// "v17 console sessions"; PostgreSQL's "v23 console sessions". The console's sessions, one-time sign-in codes
    /// and failed sign-ins, shared by every provider on the database (``ConsoleSessionStore``), and its Metrics
    /// page's last hour (``ConsoleMetricStore``).
    static func v17ConsoleSessions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE console_sessions (
                    id_hash TEXT PRIMARY KEY, csrf_token TEXT NOT NULL, sealed_key TEXT NOT NULL,
                    key_hash TEXT NOT NULL, holder_app TEXT, address TEXT NOT NULL, expires_at REAL NOT NULL);
                CREATE INDEX console_sessions_by_key ON console_sessions(key_hash);
                CREATE INDEX console_sessions_by_address ON console_sessions(address);
                CREATE TABLE console_login_codes (
                    code_hash TEXT PRIMARY KEY, sealed_key TEXT NOT NULL, expires_at REAL NOT NULL);
                CREATE TABLE console_sign_in_failures (address TEXT NOT NULL, at REAL NOT NULL);
                CREATE INDEX console_sign_in_failures_by_address ON console_sign_in_failures(address, at);
                CREATE TABLE console_metric_samples (series TEXT NOT NULL, at REAL NOT NULL, sample BLOB NOT NULL);
                CREATE INDEX console_metric_samples_by_series ON console_metric_samples(series, at);
                """)
    }
}

extension SQLiteSchema {
    /// "v19 key scopes"; PostgreSQL's "v25 key scopes". What an API key may do (``APIKeyRecord/scopes``), names
    /// joined by commas; NULL for everything (every key made before).
    static func v19KeyScopes(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE api_keys ADD COLUMN scopes TEXT")
    }
}

extension SQLiteSchema {
    /// "v20 audit log"; PostgreSQL's "v26 audit log". Every change made with a secret (``AuditLog``); no foreign key:
    /// an app's entries outlive it (its deletion is one of them).
    static func v20AuditLog(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE audit_log (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, actor TEXT NOT NULL, key_id TEXT,
                    console INTEGER NOT NULL, app_id TEXT, kind TEXT NOT NULL, method TEXT NOT NULL,
                    route TEXT NOT NULL, path TEXT NOT NULL, status INTEGER NOT NULL, address TEXT NOT NULL,
                    fields TEXT
                );
                CREATE INDEX audit_log_at ON audit_log(at);
                CREATE INDEX audit_log_app ON audit_log(app_id, id);
                """)
    }
}

extension SQLiteSchema {
    /// "v21 notification languages"; PostgreSQL's "v27 notification languages". A notification's payload in each
    /// language of its content, and its deliveries counted by language.
    static func v21NotificationLanguages(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE notifications ADD COLUMN localized BLOB;
                ALTER TABLE notifications ADD COLUMN language_counts TEXT;
                """)
    }
}

extension SQLiteSchema {
    /// "v22 quiet hours"; PostgreSQL's "v28 quiet hours". An app's quiet window (``QuietHours``, JSON) and a
    /// notification's own.
    static func v22QuietHours(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE apps ADD COLUMN quiet_hours TEXT;
                ALTER TABLE notifications ADD COLUMN quiet_hours TEXT;
                """)
    }
}

extension SQLiteSchema {
    /// "v23 variables"; PostgreSQL's "v29 variables". A device's attributes (JSON), which a notification's text
    /// names, and whether a notification's text names any.
    static func v23Variables(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE devices ADD COLUMN attributes TEXT;
                ALTER TABLE notifications ADD COLUMN variables INTEGER NOT NULL DEFAULT 0;
                """)
    }
}

extension SQLiteSchema {
    /// "v24 frequency caps"; PostgreSQL's "v30 frequency caps". An app's caps (``FrequencyCap``, JSON), a
    /// notification's cap category, and the log of which notification of a category went to whom: what a cap counts.
    static func v24FrequencyCaps(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE apps ADD COLUMN frequency_caps TEXT;
                ALTER TABLE notifications ADD COLUMN cap_category TEXT;
                CREATE TABLE cap_log (
                    app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, category TEXT NOT NULL,
                    subject TEXT NOT NULL, notification_id TEXT NOT NULL, at REAL NOT NULL,
                    PRIMARY KEY (app_id, category, subject, notification_id)
                ) WITHOUT ROWID;
                CREATE INDEX cap_log_at ON cap_log(at);
                """)
    }
}

extension SQLiteSchema {
    /// "v25 user attributes"; PostgreSQL's "v31 user attributes". A user's attributes (JSON), which a notification's
    /// variables name for each of the user's devices (a device's own attribute of the same name wins).
    static func v25UserAttributes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE user_attributes (
                    app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE, user_id TEXT NOT NULL,
                    attributes TEXT NOT NULL, updated_at REAL NOT NULL,
                    PRIMARY KEY (app_id, user_id)
                ) WITHOUT ROWID;
                """)
    }
}
