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
