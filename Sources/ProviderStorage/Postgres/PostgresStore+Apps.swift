package import Foundation
import PostgresNIO

extension PostgresStore {
    package func insertApp(_ app: StoredApp, apiKeyID: String, apiKeyHash: String) async throws(ProviderError) {
        let (a, auth) = (app.app, app.app.authentication)
        let categories = String(decoding: app.categories, as: UTF8.self)
        try await transaction { [logger] connection in
            try await connection.rows(
                """
                INSERT INTO apps (id, name, bundle_id, environment, endpoint, ca_pem, auth_kind, team_id, key_id,
                    sealed_credentials, publishable_key, webhook_url, rate_limit, categories, categories_version,
                    created_at, updated_at, channel_endpoint, key_fingerprint, retention_deliveries, retention_traces,
                    retention_responses, webhook_batch, quiet_hours, frequency_caps)
                VALUES (\(a.id), \(a.name), \(a.bundleID), \(a.environment), \(a.endpoint), \(app.caPEM),
                    \(auth.kind), \(auth.teamID), \(auth.keyID), \(app.sealedCredentials), \(a.publishableKey),
                    \(a.webhookURL), \(a.rateLimit), \(categories), \(app.categoriesVersion), \(a.createdAt),
                    \(a.updatedAt), \(a.channelEndpoint), \(auth.fingerprint), \(a.retention.deliveries),
                    \(a.retention.traces), \(a.retention.responses), \(a.webhookBatch), \(a.quietHours?.stored),
                    \(FrequencyCap.stored(a.frequencyCaps)))
                """, logger)
            try await connection.rows(
                """
                INSERT INTO api_keys (id, app_id, key_hash, created_at)
                VALUES (\(apiKeyID), \(a.id), \(apiKeyHash), \(a.createdAt))
                """, logger)
        }
    }

    package func updateApp(_ app: StoredApp) async throws(ProviderError) {
        let (a, auth) = (app.app, app.app.authentication)
        let sealed = ByteBuffer(bytes: app.sealedCredentials)
        try await rows(
            """
            UPDATE apps SET name = \(a.name), bundle_id = \(a.bundleID), environment = \(a.environment),
                endpoint = \(a.endpoint), ca_pem = \(app.caPEM), auth_kind = \(auth.kind), team_id = \(auth.teamID),
                key_id = \(auth.keyID), sealed_credentials = \(sealed), webhook_url = \(a.webhookURL),
                rate_limit = \(a.rateLimit), channel_endpoint = \(a.channelEndpoint), updated_at = \(a.updatedAt),
                key_fingerprint = \(auth.fingerprint), retention_deliveries = \(a.retention.deliveries),
                retention_traces = \(a.retention.traces), retention_responses = \(a.retention.responses),
                webhook_batch = \(a.webhookBatch), quiet_hours = \(a.quietHours?.stored),
                frequency_caps = \(FrequencyCap.stored(a.frequencyCaps))
            WHERE id = \(a.id)
            """)
    }

    package func app(id: String) async throws(ProviderError) -> StoredApp? {
        try await apps("SELECT * FROM apps WHERE id = \(id)").first
    }

    package func apps() async throws(ProviderError) -> [StoredApp] {
        try await apps("SELECT * FROM apps ORDER BY created_at")
    }

    package func app(publishableKey: String) async throws(ProviderError) -> StoredApp? {
        try await apps("SELECT * FROM apps WHERE publishable_key = \(publishableKey)").first
    }

    package func setCategories(appID: String, json: Data, at: Date) async throws(ProviderError) -> Int {
        try await count(
            """
            UPDATE apps SET categories = \(String(decoding: json, as: UTF8.self)),
                categories_version = categories_version + 1, updated_at = \(at)
            WHERE id = \(appID) RETURNING categories_version
            """)
    }

    private func apps(_ query: PostgresQuery) async throws(ProviderError) -> [StoredApp] {
        let rows = try await rows(query)
        do {
            return try rows.map { try Self.app(from: $0.makeRandomAccess()) }
        } catch {
            throw Self.failure(error)
        }
    }

    static func app(from row: PostgresRandomAccessRow) throws -> StoredApp {
        let caPEM = try row.column("ca_pem", as: String?.self)
        return StoredApp(
            app: ProviderApp(
                id: try row.column("id"), name: try row.column("name"), bundleID: try row.column("bundle_id"),
                environment: try row.column("environment"), endpoint: try row.column("endpoint"),
                hasCustomCA: caPEM != nil,
                authentication: .init(
                    kind: try row.column("auth_kind"), teamID: try row.column("team_id"),
                    keyID: try row.column("key_id"), fingerprint: try row.column("key_fingerprint")),
                publishableKey: try row.column("publishable_key"), webhookURL: try row.column("webhook_url"),
                webhookBatch: try row.column("webhook_batch"),
                rateLimit: try row.column("rate_limit"),
                quietHours: QuietHours(stored: try row.column("quiet_hours", as: String?.self)),
                frequencyCaps: FrequencyCap.caps(stored: try row.column("frequency_caps", as: String?.self)),
                channelEndpoint: try row.column("channel_endpoint"),
                pausedAt: try row.column("paused_at"), pauseReason: try row.column("pause_reason"),
                retention: RetentionDays(
                    deliveries: try row.column("retention_deliveries"), traces: try row.column("retention_traces"),
                    responses: try row.column("retention_responses")),
                createdAt: try row.column("created_at"),
                updatedAt: try row.column("updated_at")),
            sealedCredentials: try row.column("sealed_credentials"), caPEM: caPEM,
            categories: Data(try row.column("categories", as: String.self).utf8),
            categoriesVersion: try row.column("categories_version"),
            lastReceiptAt: try row.column("last_receipt_at", as: Date?.self))
    }
}
