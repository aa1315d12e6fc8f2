package import Foundation
import GRDB

extension SQLiteStore {
    package func insertApp(_ app: StoredApp, apiKeyID: String, apiKeyHash: String) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO apps (id, name, bundle_id, environment, endpoint, ca_pem, auth_kind, team_id, key_id,
                        sealed_credentials, publishable_key, webhook_url, rate_limit, categories, categories_version,
                        created_at, updated_at, channel_endpoint, key_fingerprint, retention_deliveries,
                        retention_traces, retention_responses, webhook_batch, quiet_hours, frequency_caps)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: Self.arguments(app))
            try db.execute(
                sql: "INSERT INTO api_keys (id, app_id, key_hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [apiKeyID, app.app.id, apiKeyHash, app.app.createdAt.stored])
        }
    }

    package func updateApp(_ app: StoredApp) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE apps SET name = ?, bundle_id = ?, environment = ?, endpoint = ?, ca_pem = ?, auth_kind = ?,
                        team_id = ?, key_id = ?, sealed_credentials = ?, webhook_url = ?, rate_limit = ?,
                        channel_endpoint = ?, updated_at = ?, key_fingerprint = ?, retention_deliveries = ?,
                        retention_traces = ?, retention_responses = ?, webhook_batch = ?, quiet_hours = ?,
                        frequency_caps = ?
                    WHERE id = ?
                    """,
                arguments: [
                    app.app.name, app.app.bundleID, app.app.environment, app.app.endpoint, app.caPEM,
                    app.app.authentication.kind, app.app.authentication.teamID, app.app.authentication.keyID,
                    app.sealedCredentials, app.app.webhookURL, app.app.rateLimit, app.app.channelEndpoint,
                    app.app.updatedAt.stored, app.app.authentication.fingerprint, app.app.retention.deliveries,
                    app.app.retention.traces, app.app.retention.responses, app.app.webhookBatch,
                    app.app.quietHours?.stored, FrequencyCap.stored(app.app.frequencyCaps), app.app.id,
                ])
        }
    }

    package func app(id: String) async throws(ProviderError) -> StoredApp? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM apps WHERE id = ?", arguments: [id]).map(Self.app(from:))
        }
    }

    package func apps() async throws(ProviderError) -> [StoredApp] {
        try await read { db in try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY created_at").map(Self.app(from:))
        }
    }

    package func app(publishableKey: String) async throws(ProviderError) -> StoredApp? {
        // Cached statements: every request with a key looks its app up, and preparing the statement each time
        // cost more than running it.
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM apps WHERE publishable_key = ?"), arguments: [publishableKey]
            ).map(Self.app(from:))
        }
    }

    package func setCategories(appID: String, json: Data, at: Date) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE apps SET categories = ?, categories_version = categories_version + 1, updated_at = ?
                    WHERE id = ?
                    """, arguments: [String(decoding: json, as: UTF8.self), at.stored, appID])
            return try Int.fetchOne(db, sql: "SELECT categories_version FROM apps WHERE id = ?", arguments: [appID])
                ?? 0
        }
    }

    private static func arguments(_ app: StoredApp) -> StatementArguments {
        [
            app.app.id, app.app.name, app.app.bundleID, app.app.environment, app.app.endpoint, app.caPEM,
            app.app.authentication.kind, app.app.authentication.teamID, app.app.authentication.keyID,
            app.sealedCredentials, app.app.publishableKey, app.app.webhookURL, app.app.rateLimit,
            String(decoding: app.categories, as: UTF8.self), app.categoriesVersion, app.app.createdAt.stored,
            app.app.updatedAt.stored, app.app.channelEndpoint, app.app.authentication.fingerprint,
            app.app.retention.deliveries, app.app.retention.traces, app.app.retention.responses,
            app.app.webhookBatch, app.app.quietHours?.stored, FrequencyCap.stored(app.app.frequencyCaps),
        ]
    }

    static func app(from row: Row) -> StoredApp {
        let categories: String = row["categories"]
        return StoredApp(
            app: ProviderApp(
                id: row["id"], name: row["name"], bundleID: row["bundle_id"], environment: row["environment"],
                endpoint: row["endpoint"], hasCustomCA: (row["ca_pem"] as String?) != nil,
                authentication: .init(
                    kind: row["auth_kind"], teamID: row["team_id"], keyID: row["key_id"],
                    fingerprint: row["key_fingerprint"]),
                publishableKey: row["publishable_key"], webhookURL: row["webhook_url"],
                webhookBatch: row["webhook_batch"], rateLimit: row["rate_limit"],
                quietHours: QuietHours(stored: row["quiet_hours"]),
                frequencyCaps: FrequencyCap.caps(stored: row["frequency_caps"]),
                channelEndpoint: row["channel_endpoint"],
                pausedAt: (row["paused_at"] as Double?).map(Date.init(stored:)), pauseReason: row["pause_reason"],
                retention: RetentionDays(
                    deliveries: row["retention_deliveries"], traces: row["retention_traces"],
                    responses: row["retention_responses"]),
                createdAt: Date(stored: row["created_at"]),
                updatedAt: Date(stored: row["updated_at"])),
            sealedCredentials: row["sealed_credentials"], caPEM: row["ca_pem"], categories: Data(categories.utf8),
            categoriesVersion: row["categories_version"],
            lastReceiptAt: (row["last_receipt_at"] as Double?).map(Date.init(stored:)))
    }
}
