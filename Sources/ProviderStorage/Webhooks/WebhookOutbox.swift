import APNSCore
package import Foundation

/// The webhook outbox: each person's response to a notification of an app with a `webhookURL` becomes an event,
/// written in the transaction that records the response, then POSTed (signed) by the provider's webhook sender, which
/// leases events as workers lease deliveries, so several providers on one database share the work and a provider that
/// dies leaves its leases to expire. An event is deleted once the receiver answered 2xx, and kept as dead (visible,
/// retried on demand) after its last attempt.
package protocol WebhookOutbox: Sendable {
    /// Leases up to `limit` pending events due at `now` (none leased by another owner whose lease runs), oldest first,
    /// but none to the URLs in `skipping` (endpoints the sender is serving already: their events wait for it).
    func leaseWebhooks(owner: String, limit: Int, now: Date, leaseFor: TimeInterval, skipping: Set<String>)
        async throws(ProviderError) -> [OutboxEvent]
    /// The receiver answered 2xx: the events are deleted.
    func webhookSent(ids: [Int64]) async throws(ProviderError)
    /// An attempt failed (`error` says how): tried again at `retryAt`, or dead when it is `nil`; the lease ends.
    func webhookFailed(id: Int64, error: String, retryAt: Date?, at: Date) async throws(ProviderError)
    /// Gives back leased events not attempted (a stopping sender, a receiver found down): due again at `at`, no
    /// attempt counted.
    func releaseWebhooks(ids: [Int64], dueAt: Date) async throws(ProviderError)
    /// An app's events in `state` (pending or dead), by id after `after`.
    func webhookEvents(appID: String, state: OutboxEvent.State, after: Int64, limit: Int) async throws(ProviderError)
        -> [OutboxEvent]
    /// Puts an app's dead events back in the queue, due at `at`, their attempts counted from 0; how many.
    func retryDeadWebhooks(appID: String, at: Date) async throws(ProviderError) -> Int
    /// Pending and dead events, every app together, and when the oldest pending one was written (for `/metrics`).
    func webhookCounts() async throws(ProviderError) -> (pending: Int, dead: Int, oldestPending: Date?)
    /// Keeps a new signing secret for the app's webhooks (sealed by the caller); the one before it stays (for the
    /// overlap), older ones are deleted.
    func addWebhookSecret(appID: String, sealed: String, at: Date) async throws(ProviderError)
    /// The app's signing secrets, newest first (at most two), sealed.
    func webhookSecrets(appID: String) async throws(ProviderError) -> [StoredWebhookSecret]
}

/// A webhook event in the outbox.
package struct OutboxEvent: Sendable, Hashable, Codable {
    /// Whether an event waits for an attempt or is past its last one.
    package enum State: String, Sendable, Codable, CaseIterable {
        case pending, dead
    }

    package var id: Int64
    package var appID: String
    /// The `webhook-id` every attempt carries, so a receiver drops an event it already has.
    package var eventID: String
    package var url: String
    /// The JSON POSTed, as written when the response was recorded.
    package var body: Data
    package var state: State
    /// Attempts made so far.
    package var attempts: Int
    package var createdAt: Date
    /// When the next attempt is due (pending), or the last one was made (dead).
    package var nextAttemptAt: Date
    /// Why the last attempt failed.
    package var lastError: String?
    /// How many events one POST may carry, as the app says now (``ProviderApp/webhookBatch``).
    package var batchLimit: Int

    package init(
        id: Int64, appID: String, eventID: String, url: String, body: Data, state: State, attempts: Int,
        createdAt: Date, nextAttemptAt: Date, lastError: String?, batchLimit: Int = 1
    ) {
        self.batchLimit = batchLimit
        self.id = id
        self.appID = appID
        self.eventID = eventID
        self.url = url
        self.body = body
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
    }
}

/// A webhook signing secret as stored: sealed, and when it was made.
package struct StoredWebhookSecret: Sendable, Hashable {
    package var sealed: String
    package var createdAt: Date

    package init(sealed: String, createdAt: Date) {
        self.sealed = sealed
        self.createdAt = createdAt
    }
}

/// The body of a webhook event: what a person did with a notification, as the app's server receives it.
package struct WebhookEventBody: Encodable, Sendable {
    /// `opened`, `dismissed` or `action`.
    package var event: String
    package var notificationID: String
    package var deliveryID: Int64
    package var apnsID: String
    package var token: String
    package var userID: String?
    package var action: String?
    package var text: String?
    /// When the person did it (ISO 8601, milliseconds).
    package var time: String

    /// A new event's `webhook-id`: `msg_` and 32 random hex digits.
    package static func newEventID() -> String {
        "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// The JSON, keys sorted.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}

extension FeedbackEvent {
    /// The webhook body of this response on the delivery `context` describes; `nil` for what is not a person's
    /// response (delivered, displayed, an outcome), which no webhook carries.
    package func webhookBody(_ context: DeliveryContext, key: MessageKey) -> WebhookEventBody? {
        guard Self.responses.contains(event) else { return nil }
        return WebhookEventBody(
            event: event, notificationID: context.notificationID, deliveryID: context.deliveryID,
            apnsID: DeliveryMessageID(notificationID: context.notificationID, deliveryID: context.deliveryID, key: key)
                .string,
            token: context.token, userID: context.userID, action: action, text: reply, time: at.iso8601Milliseconds)
    }
}
