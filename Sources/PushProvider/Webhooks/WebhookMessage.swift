import Crypto
import Foundation
import ProviderStorage

/// What one POST to a webhook carries: one event as it was written, or, for an app whose receiver takes batches
/// (``ProviderApp/webhookBatch`` above 1), up to that many of its events as `{"events": [...]}`, each event's object
/// with its own `webhookID` first.
struct WebhookMessage: Sendable {
    /// The app whose secret signs it.
    let appID: String
    /// The events it carries, oldest first.
    let events: [OutboxEvent]
    /// Its `webhook-id`: the event's own, or for a batch `batch_` and 32 hex digits of SHA-256 over its events' ids,
    /// so the same events tried again carry the same id.
    let id: String
    let body: Data

    /// The messages one endpoint's `events` make: each app's events in order, in batches of the app's limit (one
    /// event alone where it is 1).
    static func messages(_ events: [OutboxEvent]) -> [WebhookMessage] {
        var order: [String] = []
        var byApp: [String: [OutboxEvent]] = [:]
        for event in events {
            if byApp[event.appID] == nil { order.append(event.appID) }
            byApp[event.appID, default: []].append(event)
        }
        return order.flatMap { appID -> [WebhookMessage] in
            let events = byApp[appID] ?? []
            let limit = max(1, events.last?.batchLimit ?? 1)
            guard limit > 1 else { return events.map(single) }
            return stride(from: 0, to: events.count, by: limit).map { start in
                batch(appID, Array(events[start..<min(start + limit, events.count)]))
            }
        }
    }

    private static func single(_ event: OutboxEvent) -> WebhookMessage {
        WebhookMessage(appID: event.appID, events: [event], id: event.eventID, body: event.body)
    }

    private static func batch(_ appID: String, _ events: [OutboxEvent]) -> WebhookMessage {
        var body = Data(#"{"events":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: Data(#"{"webhookID":"\#(event.eventID)""#.utf8))
            // A stored body is a JSON object: its members follow the id.
            if event.body.count > 2 {
                body.append(UInt8(ascii: ","))
                body.append(event.body.dropFirst())
            } else {
                body.append(UInt8(ascii: "}"))
            }
        }
        body.append(contentsOf: Data("]}".utf8))
        let digest = SHA256.hash(data: Data(events.map(\.eventID).joined(separator: ",").utf8))
        let hex = digest.prefix(16).map { String(format: "%02x", $0) }.joined()
        return WebhookMessage(appID: appID, events: events, id: "batch_" + hex, body: body)
    }
}
