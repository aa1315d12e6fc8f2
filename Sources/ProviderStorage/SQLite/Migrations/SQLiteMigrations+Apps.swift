import GRDB

/// v14 on: what apps keep beyond their first columns, and what every provider on the database shares.
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
