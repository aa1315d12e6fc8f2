/// v20 on: what apps keep beyond their first columns, and what every provider on the database shares.
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
