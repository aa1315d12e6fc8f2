import GRDB

/// v13: the webhook outbox (``WebhookOutbox``) and each app's signing secrets.
extension SQLiteSchema {
    /// "v13 webhook outbox"; PostgreSQL's "v19 webhook outbox".
    static func v13WebhookOutbox(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE webhook_outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                    event_id TEXT NOT NULL UNIQUE,
                    url TEXT NOT NULL,
                    body BLOB NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending',
                    attempts INTEGER NOT NULL DEFAULT 0,
                    created_at REAL NOT NULL,
                    next_attempt_at REAL NOT NULL,
                    lease_owner TEXT,
                    lease_until REAL,
                    last_error TEXT
                );
                CREATE INDEX webhook_outbox_due ON webhook_outbox(next_attempt_at, id) WHERE state = 'pending';
                CREATE INDEX webhook_outbox_app ON webhook_outbox(app_id, state, id);
                CREATE TABLE webhook_secrets (
                    app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                    sealed TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE INDEX webhook_secrets_app ON webhook_secrets(app_id, created_at);
                """)
    }
}

extension SQLiteSchema {
    /// "v18 webhook batches"; PostgreSQL's "v24 webhook batches". How many events one POST to an app's webhook may
    /// carry (``ProviderApp/webhookBatch``).
    static func v18WebhookBatches(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE apps ADD COLUMN webhook_batch INTEGER NOT NULL DEFAULT 1")
    }
}
