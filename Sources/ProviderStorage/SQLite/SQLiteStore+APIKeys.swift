package import Foundation
import GRDB

/// An app's API keys: kept by their hashes, with their scopes.
extension SQLiteStore {
    package func app(apiKeyHash: String) async throws(ProviderError) -> (app: StoredApp, key: APIKeyRecord)? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT apps.*, api_keys.id AS api_key_id, api_keys.scopes AS api_key_scopes,
                            api_keys.created_at AS api_key_created_at
                        FROM apps JOIN api_keys ON api_keys.app_id = apps.id WHERE key_hash = ?
                        """),
                arguments: [apiKeyHash]
            ).map { row in
                (
                    Self.app(from: row),
                    APIKeyRecord(
                        id: row["api_key_id"], scopes: APIKeyRecord.scopes(stored: row["api_key_scopes"]),
                        createdAt: Date(stored: row["api_key_created_at"]))
                )
            }
        }
    }

    package func insertAPIKey(appID: String, id: String, hash: String, scopes: [String]?, at: Date)
        async throws(ProviderError)
    {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO api_keys (id, app_id, key_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, appID, hash, APIKeyRecord.stored(scopes), at.stored])
        }
    }

    package func deleteAPIKey(appID: String, id: String) async throws(ProviderError) -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM api_keys WHERE app_id = ? AND id = ?", arguments: [appID, id])
            return db.changesCount > 0
        }
    }

    package func apiKeys(appID: String) async throws(ProviderError) -> [APIKeyRecord] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, scopes, created_at FROM api_keys WHERE app_id = ? ORDER BY created_at, id",
                arguments: [appID]
            ).map {
                APIKeyRecord(id: $0[0], scopes: APIKeyRecord.scopes(stored: $0[1]), createdAt: Date(stored: $0[2]))
            }
        }
    }
}
