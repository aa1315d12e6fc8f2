package import Foundation
import PostgresNIO

extension PostgresStore {
    package func upsertActivityToken(appID: String, _ input: ActivityTokenInput, at: Date) async throws(ProviderError)
        -> (
            ActivityTokenRecord, created: Bool
        )
    {
        let (token, deviceToken, hourAgo) = (
            input.token.lowercased(), input.deviceToken?.lowercased(), at.addingTimeInterval(-3600)
        )
        let rows = try await rows(
            """
            INSERT INTO activity_tokens AS a (app_id, token, kind, attributes_type, activity_id, user_id, device_token,
                registered_at, updated_at)
            VALUES (\(appID), \(token), \(input.kind), \(input.attributesType), \(input.activityID), \(input.userID),
                \(deviceToken), \(at), \(at))
            ON CONFLICT (app_id, token) DO UPDATE SET
                kind = excluded.kind, attributes_type = excluded.attributes_type, activity_id = excluded.activity_id,
                user_id = coalesce(excluded.user_id, a.user_id),
                device_token = coalesce(excluded.device_token, a.device_token),
                registered_at = excluded.registered_at, updated_at = excluded.updated_at
            RETURNING a.token, a.kind, a.attributes_type, a.activity_id, a.user_id, a.device_token, a.registered_at,
                a.updated_at, CASE WHEN a.budget_hour_start > \(hourAgo) THEN a.budget_used ELSE 0 END AS priority10,
                false AS stale, xmax = 0 AS inserted
            """)
        do {
            guard let row = rows.first?.makeRandomAccess() else {
                throw ProviderError.storage("the activity token \(token) was written but cannot be read back")
            }
            return (try Self.activityToken(from: row), try row.column("inserted"))
        } catch {
            throw Self.failure(error)
        }
    }

    package func activityTokens(_ query: ActivityTokenQuery, now: Date) async throws(ProviderError)
        -> [ActivityTokenRecord]
    {
        var statement = PostgresStatement()
        let hourAgo = statement.bind(now.addingTimeInterval(-3600))
        let app = statement.bind(query.appID)
        statement.append(
            """
            SELECT a.token, a.kind, a.attributes_type, a.activity_id, a.user_id, a.device_token, a.registered_at,
                a.updated_at, CASE WHEN a.budget_hour_start > \(hourAgo) THEN a.budget_used ELSE 0 END AS priority10,
                EXISTS (SELECT 1 FROM devices v WHERE v.app_id = a.app_id AND v.token = a.device_token
                    AND NOT v.active AND v.deactivated_at > a.updated_at) AS stale
            FROM activity_tokens a WHERE a.app_id = \(app)
            """)
        let (condition, values) = query.condition
        statement.append(condition, binding: values)
        let limit = statement.bind(query.limit)
        statement.append(" ORDER BY a.token LIMIT \(limit)")
        let rows = try await rows(statement.query)
        do {
            return try rows.map { try Self.activityToken(from: $0.makeRandomAccess()) }
        } catch {
            throw Self.failure(error)
        }
    }

    package func deleteActivityToken(appID: String, token: String) async throws(ProviderError) -> Bool {
        try await count(
            """
            WITH changed AS (
                DELETE FROM activity_tokens WHERE app_id = \(appID) AND token = \(token.lowercased()) RETURNING 1)
            SELECT count(*) FROM changed
            """) > 0
    }

    package func insertChannel(appID: String, _ channel: ChannelRecord) async throws(ProviderError) {
        try await rows(
            """
            INSERT INTO channels (app_id, channel_id, name, storage_policy, created_at)
            VALUES (\(appID), \(channel.id), \(channel.name), \(channel.storagePolicy), \(channel.createdAt))
            """)
    }

    package func channels(appID: String) async throws(ProviderError) -> [ChannelRecord] {
        let rows = try await rows(
            "SELECT * FROM channels WHERE app_id = \(appID) ORDER BY created_at, channel_id")
        do {
            return try rows.map { row in
                let row = row.makeRandomAccess()
                return ChannelRecord(
                    id: try row.column("channel_id"), name: try row.column("name"),
                    storagePolicy: try row.column("storage_policy"), createdAt: try row.column("created_at"))
            }
        } catch {
            throw Self.failure(error)
        }
    }

    package func deleteChannel(appID: String, id: String) async throws(ProviderError) -> Bool {
        try await count(
            """
            WITH changed AS (DELETE FROM channels WHERE app_id = \(appID) AND channel_id = \(id) RETURNING 1)
            SELECT count(*) FROM changed
            """) > 0
    }

    private static func activityToken(from row: PostgresRandomAccessRow) throws -> ActivityTokenRecord {
        ActivityTokenRecord(
            token: try row.column("token"), kind: try row.column("kind"),
            attributesType: try row.column("attributes_type"), activityID: try row.column("activity_id"),
            userID: try row.column("user_id"), deviceToken: try row.column("device_token"),
            priority10ThisHour: try row.column("priority10"), registeredAt: try row.column("registered_at"),
            updatedAt: try row.column("updated_at"), stale: try row.column("stale"))
    }
}
