package import Foundation
import GRDB

extension SQLiteStore {
    package func upsertActivityToken(appID: String, _ input: ActivityTokenInput, at: Date) async throws(ProviderError)
        -> (
            ActivityTokenRecord, created: Bool
        )
    {
        let token = input.token.lowercased()
        return try await write { db in
            let existed =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM activity_tokens WHERE app_id = ? AND token = ?", arguments: [appID, token])
                ?? false
            try db.execute(
                sql: """
                    INSERT INTO activity_tokens (app_id, token, kind, attributes_type, activity_id, user_id,
                        device_token, registered_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app_id, token) DO UPDATE SET
                        kind = excluded.kind, attributes_type = excluded.attributes_type,
                        activity_id = excluded.activity_id, user_id = coalesce(excluded.user_id, user_id),
                        device_token = coalesce(excluded.device_token, device_token),
                        registered_at = excluded.registered_at, updated_at = excluded.updated_at
                    """,
                arguments: [
                    appID, token, input.kind, input.attributesType, input.activityID, input.userID,
                    input.deviceToken?.lowercased(), at.stored, at.stored,
                ])
            let row = try Row.fetchOne(
                db, sql: "SELECT \(Self.activityColumns) FROM activity_tokens a WHERE a.app_id = ? AND a.token = ?",
                arguments: [at.addingTimeInterval(-3600).stored, appID, token])
            // Safety: written above in this transaction.
            return (Self.activityToken(from: row!), !existed)
        }
    }

    package func activityTokens(_ query: ActivityTokenQuery, now: Date) async throws(ProviderError)
        -> [ActivityTokenRecord]
    {
        let condition = query.condition
        var values: [(any DatabaseValueConvertible)?] = [now.addingTimeInterval(-3600).stored, query.appID]
        values += condition.values.map { $0 as (any DatabaseValueConvertible)? }
        values.append(query.limit)
        let arguments = StatementArguments(values)
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.activityColumns) FROM activity_tokens a WHERE a.app_id = ?\(condition.sql)
                    ORDER BY a.token LIMIT ?
                    """, arguments: arguments
            ).map(Self.activityToken(from:))
        }
    }

    package func deleteActivityToken(appID: String, token: String) async throws(ProviderError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM activity_tokens WHERE app_id = ? AND token = ?",
                arguments: [appID, token.lowercased()])
            return db.changesCount > 0
        }
    }

    package func insertChannel(appID: String, _ channel: ChannelRecord) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql:
                    "INSERT INTO channels (app_id, channel_id, name, storage_policy, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [appID, channel.id, channel.name, channel.storagePolicy, channel.createdAt.stored])
        }
    }

    package func channels(appID: String) async throws(ProviderError) -> [ChannelRecord] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM channels WHERE app_id = ? ORDER BY created_at, channel_id", arguments: [appID]
            ).map { row in
                ChannelRecord(
                    id: row["channel_id"], name: row["name"], storagePolicy: row["storage_policy"],
                    createdAt: Date(stored: row["created_at"]))
            }
        }
    }

    package func deleteChannel(appID: String, id: String) async throws(ProviderError) -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM channels WHERE app_id = ? AND channel_id = ?", arguments: [appID, id])
            return db.changesCount > 0
        }
    }

    /// An activity token's columns; the first argument is the start of the current hour's budget window.
    private static let activityColumns = """
        a.token, a.kind, a.attributes_type, a.activity_id, a.user_id, a.device_token, a.registered_at, a.updated_at,
        CASE WHEN a.budget_hour_start > ? THEN a.budget_used ELSE 0 END AS priority10,
        CASE WHEN EXISTS (SELECT 1 FROM devices v WHERE v.app_id = a.app_id AND v.token = a.device_token
            AND v.active = 0 AND v.deactivated_at > a.updated_at) THEN 1 ELSE 0 END AS stale
        """

    private static func activityToken(from row: Row) -> ActivityTokenRecord {
        ActivityTokenRecord(
            token: row["token"], kind: row["kind"], attributesType: row["attributes_type"],
            activityID: row["activity_id"], userID: row["user_id"], deviceToken: row["device_token"],
            priority10ThisHour: row["priority10"], registeredAt: Date(stored: row["registered_at"]),
            updatedAt: Date(stored: row["updated_at"]), stale: row["stale"])
    }
}
