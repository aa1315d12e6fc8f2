package import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    private static let eventColumns = """
        id, app_id, event_id, url, body, state, attempts, created_at, next_attempt_at, last_error,
        coalesce((SELECT webhook_batch FROM apps WHERE apps.id = webhook_outbox.app_id), 1)
        """

    private static func event(_ row: PostgresRow) throws -> OutboxEvent {
        let (id, appID, eventID, url, body, state, attempts, created, next, error, batch) = try row.decode(
            (Int64, String, String, String, Data, String, Int, Date, Date, String?, Int).self)
        return OutboxEvent(
            id: id, appID: appID, eventID: eventID, url: url, body: body,
            state: OutboxEvent.State(rawValue: state) ?? .pending, attempts: attempts, createdAt: created,
            nextAttemptAt: next, lastError: error, batchLimit: batch)
    }

    /// Writes a webhook event for `body` to `url` in `connection`'s transaction (the one that records the response).
    static func enqueueWebhook(
        _ connection: PostgresConnection, logger: Logger, appID: String, url: String, body: WebhookEventBody, at: Date
    ) async throws {
        try await connection.rows(
            """
            INSERT INTO webhook_outbox (app_id, event_id, url, body, created_at, next_attempt_at)
            VALUES (\(appID), \(WebhookEventBody.newEventID()), \(url), \(body.encoded()), \(at), \(at))
            """, logger)
    }

    package func leaseWebhooks(owner: String, limit: Int, now: Date, leaseFor: TimeInterval, skipping: Set<String>)
        async throws(ProviderError) -> [OutboxEvent]
    {
        let until = now.addingTimeInterval(leaseFor)
        let rows = try await rows(
            """
            UPDATE webhook_outbox SET lease_owner = \(owner), lease_until = \(until)
            WHERE id = ANY(ARRAY(
                SELECT id FROM webhook_outbox
                WHERE state = 'pending' AND next_attempt_at <= \(now) AND (lease_until IS NULL OR lease_until < \(now))
                    AND url <> ALL(\(skipping.sorted())::text[])
                ORDER BY next_attempt_at, id LIMIT \(limit)
                FOR UPDATE SKIP LOCKED))
            RETURNING \(unescaped: Self.eventColumns)
            """)
        do {
            return try rows.map(Self.event).sorted { $0.id < $1.id }
        } catch {
            throw Self.failure(error)
        }
    }

    package func webhookSent(ids: [Int64]) async throws(ProviderError) {
        guard !ids.isEmpty else { return }
        try await rows("DELETE FROM webhook_outbox WHERE id = ANY(\(ids))")
    }

    package func webhookFailed(id: Int64, error: String, retryAt: Date?, at: Date) async throws(ProviderError) {
        let state = retryAt == nil ? "dead" : "pending"
        try await rows(
            """
            UPDATE webhook_outbox SET attempts = attempts + 1, last_error = \(String(error.prefix(500))),
                state = \(state), next_attempt_at = \(retryAt ?? at), lease_owner = NULL, lease_until = NULL
            WHERE id = \(id)
            """)
    }

    package func releaseWebhooks(ids: [Int64], dueAt: Date) async throws(ProviderError) {
        guard !ids.isEmpty else { return }
        try await rows(
            """
            UPDATE webhook_outbox SET lease_owner = NULL, lease_until = NULL,
                next_attempt_at = greatest(next_attempt_at, \(dueAt))
            WHERE id = ANY(\(ids))
            """)
    }

    package func webhookEvents(appID: String, state: OutboxEvent.State, after: Int64, limit: Int)
        async throws(ProviderError) -> [OutboxEvent]
    {
        let rows = try await rows(
            """
            SELECT \(unescaped: Self.eventColumns) FROM webhook_outbox
            WHERE app_id = \(appID) AND state = \(state.rawValue) AND id > \(after) ORDER BY id LIMIT \(limit)
            """)
        do {
            return try rows.map(Self.event)
        } catch {
            throw Self.failure(error)
        }
    }

    package func retryDeadWebhooks(appID: String, at: Date) async throws(ProviderError) -> Int {
        let rows = try await rows(
            """
            UPDATE webhook_outbox SET state = 'pending', attempts = 0, next_attempt_at = \(at)
            WHERE app_id = \(appID) AND state = 'dead' RETURNING id
            """)
        return rows.count
    }

    package func webhookCounts() async throws(ProviderError) -> (pending: Int, dead: Int, oldestPending: Date?) {
        let rows = try await rows("SELECT state, count(*), min(created_at) FROM webhook_outbox GROUP BY state")
        do {
            let decoded = try rows.map { try $0.decode((String, Int, Date?).self) }
            let counts = Dictionary(uniqueKeysWithValues: decoded.map { ($0.0, $0.1) })
            return (counts["pending"] ?? 0, counts["dead"] ?? 0, decoded.first { $0.0 == "pending" }?.2)
        } catch {
            throw Self.failure(error)
        }
    }

    package func addWebhookSecret(appID: String, sealed: String, at: Date) async throws(ProviderError) {
        try await transaction { [logger] connection in
            // One secret change at a time per app: the row lock of the app orders them.
            try await connection.rows("SELECT 1 FROM apps WHERE id = \(appID) FOR UPDATE", logger)
            try await connection.rows(
                """
                DELETE FROM webhook_secrets WHERE app_id = \(appID) AND created_at < (
                    SELECT max(created_at) FROM webhook_secrets WHERE app_id = \(appID))
                """, logger)
            try await connection.rows(
                "INSERT INTO webhook_secrets (app_id, sealed, created_at) VALUES (\(appID), \(sealed), \(at))",
                logger)
        }
    }

    package func webhookSecrets(appID: String) async throws(ProviderError) -> [StoredWebhookSecret] {
        let rows = try await rows(
            """
            SELECT sealed, created_at FROM webhook_secrets WHERE app_id = \(appID)
            ORDER BY created_at DESC LIMIT 2
            """)
        do {
            return try rows.map { row in
                let (sealed, created) = try row.decode((String, Date).self)
                return StoredWebhookSecret(sealed: sealed, createdAt: created)
            }
        } catch {
            throw Self.failure(error)
        }
    }
}
