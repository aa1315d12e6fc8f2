import GRDB

/// v14 on: what apps keep beyond their first columns.
extension SQLiteSchema {
    /// "v14 pause reason"; PostgreSQL's "v20 pause reason". Why the provider paused an app itself (APNs refused its
    /// credentials); NULL for an operator's pause.
    static func v14PauseReason(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE apps ADD COLUMN pause_reason TEXT")
    }
}
