/// v19: the webhook outbox (``WebhookOutbox``) and each app's signing secrets.
extension PostgresSchema {
    /// "v19 webhook outbox"; SQLite's "v13 webhook outbox".
    static let v19WebhookOutbox: [String] = [
        """
        CREATE TABLE webhook_outbox (
            id bigserial PRIMARY KEY,
            app_id text NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
            event_id text NOT NULL UNIQUE,
            url text NOT NULL,
            body bytea NOT NULL,
            state text NOT NULL DEFAULT 'pending',
            attempts integer NOT NULL DEFAULT 0,
            created_at timestamptz NOT NULL,
            next_attempt_at timestamptz NOT NULL,
            lease_owner text,
            lease_until timestamptz,
            last_error text
        )
        """,
        "CREATE INDEX webhook_outbox_due ON webhook_outbox(next_attempt_at, id) WHERE state = 'pending'",
        "CREATE INDEX webhook_outbox_app ON webhook_outbox(app_id, state, id)",
        """
        CREATE TABLE webhook_secrets (
            app_id text NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
            sealed text NOT NULL,
            created_at timestamptz NOT NULL
        )
        """,
        "CREATE INDEX webhook_secrets_app ON webhook_secrets(app_id, created_at)",
    ]
}

extension PostgresSchema {
    /// "v24 webhook batches"; SQLite's "v18 webhook batches". How many events one POST to an app's webhook may carry
    /// (``ProviderApp/webhookBatch``).
    static let v24WebhookBatches: [String] = [
        "ALTER TABLE apps ADD COLUMN webhook_batch integer NOT NULL DEFAULT 1"
    ]
}
