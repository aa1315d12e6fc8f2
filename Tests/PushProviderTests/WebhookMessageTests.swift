import Foundation
import ProviderStorage
import Testing

@testable import PushProvider

@Suite("Webhook messages: one event alone, or an app's events in batches of its limit")
struct WebhookMessageTests {
    static func event(_ id: Int64, app: String, batch: Int, body: String = #"{"event":"opened"}"#) -> OutboxEvent {
        OutboxEvent(
            id: id, appID: app, eventID: "msg_\(id)", url: "https://hooks.example/h", body: Data(body.utf8),
            state: .pending, attempts: 0, createdAt: Date(), nextAttemptAt: Date(), lastError: nil, batchLimit: batch)
    }

    @Test("an app with batches of 1 sends each event as written, under its own webhook-id")
    func single() {
        let messages = WebhookMessage.messages([Self.event(1, app: "a", batch: 1), Self.event(2, app: "a", batch: 1)])
        #expect(messages.map(\.id) == ["msg_1", "msg_2"])
        #expect(
            messages.map { String(decoding: $0.body, as: UTF8.self) }
                == Array(repeating: #"{"event":"opened"}"#, count: 2))
    }

    @Test("each app's events batched apart, in order; the same events make the same id, others another")
    func batches() throws {
        let events = [
            Self.event(1, app: "a", batch: 2), Self.event(2, app: "b", batch: 1), Self.event(3, app: "a", batch: 2),
            Self.event(4, app: "a", batch: 2, body: "{}"),
        ]
        let messages = WebhookMessage.messages(events)
        #expect(messages.map { $0.events.map(\.id) } == [[1, 3], [4], [2]])
        #expect(messages.map(\.appID) == ["a", "a", "b"])
        let body = try #require(try JSONSerialization.jsonObject(with: messages[0].body) as? [String: Any])
        let inner = try #require(body["events"] as? [[String: Any]])
        #expect(inner.map { $0["webhookID"] as? String } == ["msg_1", "msg_3"])
        #expect(inner.allSatisfy { $0["event"] as? String == "opened" })
        let empty = try #require(try JSONSerialization.jsonObject(with: messages[1].body) as? [String: Any])
        #expect((empty["events"] as? [[String: Any]])?.first?["webhookID"] as? String == "msg_4")
        #expect(messages[0].id.hasPrefix("batch_") && messages[0].id.count == "batch_".count + 32)
        #expect(WebhookMessage.messages(Array(events.prefix(3)))[0].id == messages[0].id)
        #expect(messages[1].id != messages[0].id)
    }
}
