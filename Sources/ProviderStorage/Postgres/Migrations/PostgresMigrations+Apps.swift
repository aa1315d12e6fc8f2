/// v20 on: what apps keep beyond their first columns.
extension PostgresSchema {
    /// "v20 pause reason"; SQLite's "v14 pause reason". Why the provider paused an app itself (APNs refused its
    /// credentials); NULL for an operator's pause.
    static let v20PauseReason: [String] = ["ALTER TABLE apps ADD COLUMN pause_reason text"]
}
