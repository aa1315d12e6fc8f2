package import Foundation
import GRDB

extension SQLiteStore {
    /// The columns an ``OutboxEvent`` is read from, in ``event(_:)``'s order.
    private static let eventColumns = """
        id, app_id, event_id, url, body, state, attempts, created_at, next_attempt_at, last_error,
        coalesce((SELECT webhook_batch FROM apps WHERE apps.id = webhook_outbox.app_id), 1)
        """

    private static func event(_ row: Row) -> OutboxEvent {
        OutboxEvent(
            id: row[0], appID: row[1], eventID: row[2], url: row[3], body: row[4],
            state: OutboxEvent.State(rawValue: row[5]) ?? .pending, attempts: row[6],
            createdAt: Date(stored: row[7]), nextAttemptAt: Date(stored: row[8]), lastError: row[9],
            batchLimit: row[10])
    }

    /// Writes a webhook event for `body` to `url` in the transaction of `db` (the one that records the response).
    static func enqueueWebhook(_ db: Database, appID: String, url: String, body: WebhookEventBody, at: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO webhook_outbox (app_id, event_id, url, body, created_at, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [appID, WebhookEventBody.newEventID(), url, body.encoded(), at.stored, at.stored])
    }

    package func leaseWebhooks(owner: String, limit: Int, now: Date, leaseFor: TimeInterval, skipping: Set<String>)
        async throws(ProviderError) -> [OutboxEvent]
    {
        let skipped = String(decoding: (try? JSONEncoder().encode(skipping.sorted())) ?? Data("[]".utf8), as: UTF8.self)
        return try await write { db in
            try Row.fetchAll(
                db,
                sql: """
                    UPDATE webhook_outbox SET lease_owner = ?, lease_until = ?
                    WHERE id IN (
                        SELECT id FROM webhook_outbox INDEXED BY webhook_outbox_due
                        WHERE state = 'pending' AND next_attempt_at <= ?
                            AND (lease_until IS NULL OR lease_until < ?)
                            AND url NOT IN (SELECT value FROM json_each(?))
                        ORDER BY next_attempt_at, id LIMIT ?)
                    RETURNING \(Self.eventColumns)
                    """,
                arguments: [owner, now.addingTimeInterval(leaseFor).stored, now.stored, now.stored, skipped, limit]
            ).map(Self.event).sorted { $0.id < $1.id }
        }
    }

    package func webhookSent(ids: [Int64]) async throws(ProviderError) {
        guard !ids.isEmpty else { return }
        try await write { db in
            try db.execute(
                sql: "DELETE FROM webhook_outbox WHERE id IN (\(ids.map(String.init).joined(separator: ",")))")
        }
    }

    package func webhookFailed(id: Int64, error: String, retryAt: Date?, at: Date) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_outbox SET attempts = attempts + 1, last_error = ?, state = ?,
                        next_attempt_at = ?, lease_owner = NULL, lease_until = NULL
                    WHERE id = ?
                    """,
                arguments: [
                    String(error.prefix(500)), retryAt == nil ? "dead" : "pending", (retryAt ?? at).stored, id,
                ])
        }
    }

    package func releaseWebhooks(ids: [Int64], dueAt: Date) async throws(ProviderError) {
        guard !ids.isEmpty else { return }
        try await write { db in
            let list = ids.map(String.init).joined(separator: ",")
            try db.execute(
                sql: """
                    UPDATE webhook_outbox SET lease_owner = NULL, lease_until = NULL,
                        next_attempt_at = max(next_attempt_at, ?)
                    WHERE id IN (\(list))
                    """, arguments: [dueAt.stored])
        }
    }

    package func webhookEvents(appID: String, state: OutboxEvent.State, after: Int64, limit: Int)
        async throws(ProviderError) -> [OutboxEvent]
    {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.eventColumns) FROM webhook_outbox
                    WHERE app_id = ? AND state = ? AND id > ? ORDER BY id LIMIT ?
                    """, arguments: [appID, state.rawValue, after, limit]
            ).map(Self.event)
        }
    }

    package func retryDeadWebhooks(appID: String, at: Date) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_outbox SET state = 'pending', attempts = 0, next_attempt_at = ?
                    WHERE app_id = ? AND state = 'dead'
                    """, arguments: [at.stored, appID])
            return db.changesCount
        }
    }

    package func webhookCounts() async throws(ProviderError) -> (pending: Int, dead: Int, oldestPending: Date?) {
        try await read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT state, count(*), min(created_at) FROM webhook_outbox GROUP BY state")
            let counts = Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as String, $0[1] as Int) })
            let oldest = rows.first { $0[0] as String == "pending" }.flatMap { $0[2] as Double? }.map(
                Date.init(stored:))
            return (counts["pending"] ?? 0, counts["dead"] ?? 0, oldest)
        }
    }

    package func addWebhookSecret(appID: String, sealed: String, at: Date) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM webhook_secrets WHERE app_id = ? AND created_at < (
                        SELECT max(created_at) FROM webhook_secrets WHERE app_id = ?);
                    INSERT INTO webhook_secrets (app_id, sealed, created_at) VALUES (?, ?, ?);
                    """, arguments: [appID, appID, appID, sealed, at.stored])
        }
    }

    package func webhookSecrets(appID: String) async throws(ProviderError) -> [StoredWebhookSecret] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT sealed, created_at FROM webhook_secrets WHERE app_id = ? ORDER BY created_at DESC LIMIT 2",
                arguments: [appID]
            ).map { StoredWebhookSecret(sealed: $0[0], createdAt: Date(stored: $0[1])) }
        }
    }
}
