import APNSCore
import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import ProviderStorage

/// An app's webhook: its signing secret and its outbox (docs/api.md, "Webhooks").
struct WebhookRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let secrets: SecretBox
    /// How long the secret before a new one still signs (beside the new one).
    let overlap: TimeInterval

    /// A new secret, shown once.
    struct NewSecret: Encodable {
        /// `whsec_…`: the key a receiver verifies `webhook-signature` with.
        var secret: String
        /// Until when requests also carry a signature by the secret before it (so receivers can be switched over).
        var previousValidUntil: Date?
    }

    /// An event of the outbox, as the API lists it.
    struct Event: Encodable {
        var id: Int64
        /// The `webhook-id` every attempt carries.
        var webhookID: String
        var url: String
        var state: String
        var attempts: Int
        var createdAt: Date
        /// When the next attempt is due (pending), or when the last was made (dead).
        var nextAttemptAt: Date
        var lastError: String?
        /// What is POSTed.
        var body: JSONValue
    }

    struct Events: Encodable {
        var events: [Event]
        /// The `after` of the next page; absent on the last.
        var next: Int64?
    }

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("apps/:appID/webhook-secret") { request, context -> Response in
            let app = try await self.app(request, context)
            let secret = WebhookSignature.newSecret()
            let hadOne = try await !self.store.webhookSecrets(appID: app.app.id).isEmpty
            let now = self.now()
            try await self.store.addWebhookSecret(
                appID: app.app.id, sealed: self.secrets.seal(Data(secret.utf8)).base64EncodedString(), at: now)
            return try JSONCoding.response(
                NewSecret(secret: secret, previousValidUntil: hadOne ? now.addingTimeInterval(self.overlap) : nil),
                status: .created)
        }
        router.get("apps/:appID/webhooks") { request, context -> Response in
            let app = try await self.app(request, context)
            let query = request.uri.queryParameters
            let stateText = query.get("state") ?? "pending"
            guard let state = OutboxEvent.State(rawValue: stateText) else {
                throw ProviderError.field("state", "is pending or dead; got \(stateText)")
            }
            let after = try Self.number(query.get("after"), field: "after") ?? 0
            let limit = min(1000, max(1, try Self.number(query.get("limit"), field: "limit").map(Int.init) ?? 100))
            let events = try await self.store.webhookEvents(appID: app.app.id, state: state, after: after, limit: limit)
            return try JSONCoding.response(
                Events(
                    events: events.map { event in
                        Event(
                            id: event.id, webhookID: event.eventID, url: event.url, state: event.state.rawValue,
                            attempts: event.attempts, createdAt: event.createdAt, nextAttemptAt: event.nextAttemptAt,
                            lastError: event.lastError, body: (try? JSONValue(parsing: event.body)) ?? .null)
                    }, next: events.count == limit ? events.last?.id : nil))
        }
        router.post("apps/:appID/webhooks/retry") { request, context -> Response in
            let app = try await self.app(request, context)
            let retried = try await self.store.retryDeadWebhooks(appID: app.app.id, at: self.now())
            return try JSONCoding.response(["retried": retried])
        }
    }

    private func app(_ request: Request, _ context: AuthenticatedRequestContext) async throws -> StoredApp {
        try await context.caller.serverApp(
            request, store: store, pathAppID: try context.parameters.decoded("appID"), needs: .webhooks)
    }

    /// A query parameter that must be a whole number from 0 up.
    private static func number(_ text: String?, field: String) throws(ProviderError) -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw .field(field, "is a whole number from 0 up; got \(text)")
        }
        return value
    }
}
