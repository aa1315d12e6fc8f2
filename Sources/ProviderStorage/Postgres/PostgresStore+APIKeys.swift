package import Foundation
import PostgresNIO

/// An app's API keys: kept by their hashes, with their scopes.
extension PostgresStore {
    package func app(apiKeyHash: String) async throws(ProviderError) -> (app: StoredApp, key: APIKeyRecord)? {
        let rows = try await rows(
            """
            SELECT apps.*, api_keys.id AS api_key_id, api_keys.scopes AS api_key_scopes,
                api_keys.created_at AS api_key_created_at
            FROM apps JOIN api_keys ON api_keys.app_id = apps.id WHERE key_hash = \(apiKeyHash)
            """)
        do {
            return try rows.first.map { row in
                let row = row.makeRandomAccess()
                return (
                    try Self.app(from: row),
                    APIKeyRecord(
                        id: try row.column("api_key_id"),
                        scopes: APIKeyRecord.scopes(stored: try row.column("api_key_scopes")),
                        createdAt: try row.column("api_key_created_at"))
                )
            }
        } catch {
            throw Self.failure(error)
        }
    }

    package func insertAPIKey(appID: String, id: String, hash: String, scopes: [String]?, at: Date)
        async throws(ProviderError)
    {
        try await rows(
            """
            INSERT INTO api_keys (id, app_id, key_hash, scopes, created_at)
            VALUES (\(id), \(appID), \(hash), \(APIKeyRecord.stored(scopes)), \(at))
            """)
    }

    package func deleteAPIKey(appID: String, id: String) async throws(ProviderError) -> Bool {
        try await count(
            """
            WITH changed AS (DELETE FROM api_keys WHERE app_id = \(appID) AND id = \(id) RETURNING 1)
            SELECT count(*) FROM changed
            """) > 0
    }

    package func apiKeys(appID: String) async throws(ProviderError) -> [APIKeyRecord] {
        let rows = try await rows(
            "SELECT id, scopes, created_at FROM api_keys WHERE app_id = \(appID) ORDER BY created_at, id")
        do {
            return try rows.map { row in
                let (id, scopes, created) = try row.decode((String, String?, Date).self)
                return APIKeyRecord(id: id, scopes: APIKeyRecord.scopes(stored: scopes), createdAt: created)
            }
        } catch {
            throw Self.failure(error)
        }
    }
}
