/// v20 on: what apps keep beyond their first columns, what every provider on the database shares, and the trace a
/// notification was created in.
extension PostgresSchema {
    /// "v20 pause reason"; SQLite's "v14 pause reason". Why the provider paused an app itself (APNs refused its
    /// credentials); NULL for an operator's pause.
    static let v20PauseReason: [String] = ["ALTER TABLE apps ADD COLUMN pause_reason text"]
}

extension PostgresSchema {
    /// "v21 provider settings"; SQLite's "v15 provider settings". Settings every provider on the database shares
    /// (the admin token, sealed with the master key).
    static let v21ProviderSettings: [String] = [
        "CREATE TABLE provider_settings (name text PRIMARY KEY, value bytea NOT NULL)"
    ]
}

extension PostgresSchema {
    /// "v22 notification trace"; SQLite's "v16 notification trace". The W3C `traceparent` of the request that
    /// created a notification (when traces are exported), which its sends continue.
    static let v22NotificationTrace: [String] = ["ALTER TABLE notifications ADD COLUMN trace_context text"]
}

extension PostgresSchema {
    /// "v23 console sessions"; SQLite's "v17 console sessions". The console's sessions, one-time sign-in codes and
    /// failed sign-ins, shared by every provider on the database (``ConsoleSessionStore``), and its Metrics page's
    /// last hour (``ConsoleMetricStore``).
    static let v23ConsoleSessions: [String] = [
        """
        CREATE TABLE console_sessions (
            id_hash text PRIMARY KEY, csrf_token text NOT NULL, sealed_key text NOT NULL, key_hash text NOT NULL,
            holder_app text, address text NOT NULL, expires_at timestamptz NOT NULL)
        """,
        "CREATE INDEX console_sessions_by_key ON console_sessions(key_hash)",
        "CREATE INDEX console_sessions_by_address ON console_sessions(address)",
        "CREATE TABLE console_login_codes (code_hash text PRIMARY KEY, sealed_key text NOT NULL, expires_at timestamptz NOT NULL)",
        "CREATE TABLE console_sign_in_failures (address text NOT NULL, at timestamptz NOT NULL)",
        "CREATE INDEX console_sign_in_failures_by_address ON console_sign_in_failures(address, at)",
        "CREATE TABLE console_metric_samples (series text NOT NULL, at timestamptz NOT NULL, sample text NOT NULL)",
        "CREATE INDEX console_metric_samples_by_series ON console_metric_samples(series, at)",
    ]
}

extension PostgresSchema {
    /// "v25 key scopes"; SQLite's "v19 key scopes". What an API key may do (``APIKeyRecord/scopes``), names joined
    /// by commas; NULL for everything (every key made before).
    static let v25KeyScopes: [String] = ["ALTER TABLE api_keys ADD COLUMN scopes text"]
}

extension PostgresSchema {
    /// "v26 audit log"; SQLite's "v20 audit log". Every change made with a secret (``AuditLog``); no foreign key: an
    /// app's entries outlive it (its deletion is one of them).
    static let v26AuditLog: [String] = [
        """
        CREATE TABLE audit_log (
            id bigserial PRIMARY KEY, at timestamptz NOT NULL, actor text NOT NULL, key_id text,
            console boolean NOT NULL, app_id text, kind text NOT NULL, method text NOT NULL, route text NOT NULL,
            path text NOT NULL, status integer NOT NULL, address text NOT NULL, fields text
        )
        """,
        "CREATE INDEX audit_log_at ON audit_log(at)",
        "CREATE INDEX audit_log_app ON audit_log(app_id, id)",
    ]
}

extension PostgresSchema {
    /// "v27 notification languages"; SQLite's "v21 notification languages". A notification's payload in each
    /// language of its content, and its deliveries counted by language.
    static let v27NotificationLanguages: [String] = [
        "ALTER TABLE notifications ADD COLUMN localized bytea",
        "ALTER TABLE notifications ADD COLUMN language_counts text",
    ]
}

extension PostgresSchema {
    /// "v28 quiet hours"; SQLite's "v22 quiet hours". An app's quiet window (``QuietHours``, JSON) and a
    /// notification's own.
    static let v28QuietHours: [String] = [
        "ALTER TABLE apps ADD COLUMN quiet_hours text",
        "ALTER TABLE notifications ADD COLUMN quiet_hours text",
    ]
}

extension PostgresSchema {
    /// "v29 variables"; SQLite's "v23 variables". A device's attributes (JSON), which a notification's text names,
    /// and whether a notification's text names any.
    static let v29Variables: [String] = [
        "ALTER TABLE devices ADD COLUMN attributes text",
        "ALTER TABLE notifications ADD COLUMN variables boolean NOT NULL DEFAULT false",
    ]
}

extension PostgresSchema {
    /// "v30 frequency caps"; SQLite's "v24 frequency caps". An app's caps (``FrequencyCap``, JSON), a notification's
    /// cap category, and the log of which notification of a category went to whom: what a cap counts.
    static let v30FrequencyCaps: [String] = [
        "ALTER TABLE apps ADD COLUMN frequency_caps text",
        "ALTER TABLE notifications ADD COLUMN cap_category text",
        """
        CREATE TABLE cap_log (
            app_id text NOT NULL REFERENCES apps(id) ON DELETE CASCADE, category text NOT NULL,
            subject text NOT NULL, notification_id text NOT NULL, at timestamptz NOT NULL,
            PRIMARY KEY (app_id, category, subject, notification_id)
        )
        """,
        "CREATE INDEX cap_log_at ON cap_log(at)",
    ]
}

extension PostgresSchema {
    /// "v31 user attributes"; SQLite's "v25 user attributes". A user's attributes (JSON), which a notification's
    /// variables name for each of the user's devices (a device's own attribute of the same name wins).
    static let v31UserAttributes: [String] = [
        """
        CREATE TABLE user_attributes (
            app_id text NOT NULL REFERENCES apps(id) ON DELETE CASCADE, user_id text NOT NULL,
            attributes text NOT NULL, updated_at timestamptz NOT NULL, PRIMARY KEY (app_id, user_id)
        )
        """
    ]
}
