import Crypto
import Foundation
import Testing

@testable import ProviderStorage

/// A batch of receipts decided in memory records what the same receipts recorded one at a time would: each kind
/// once per delivery, one answer per delivery, a reply's text replaced, each stage counted once, and claims checked
/// receipt by receipt.
@Suite("Receipts in one batch: the same facts as one at a time")
struct ReceiptBatchTests {
    let key = MessageKey(SymmetricKey(size: .bits256))
    let queued = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date { queued.addingTimeInterval(60) }

    func delivery(_ id: Int64, app: String = "app1", token: String = "aa11") -> ReceiptDelivery {
        ReceiptDelivery(
            deliveryID: id, notificationID: "n1", appID: app, queuedAt: queued, token: token, userID: nil,
            webhookURL: "https://example.com/hook", stamps: [:], action: nil, reply: nil, outcome: nil,
            outcomeDetail: nil, feedback: [])
    }

    func receipt(
        _ id: Int64, _ event: String, action: String? = nil, reply: String? = nil, at: Date? = nil,
        token: String? = "AA11", app: String = "app1", apnsID: DeliveryMessageID? = nil
    ) -> FeedbackReceipt {
        FeedbackReceipt(
            appID: app,
            claim: FeedbackClaim(
                message: apnsID ?? DeliveryMessageID(notificationID: "n1", deliveryID: id, key: key), token: token,
                now: now),
            event: FeedbackEvent(event: event, action: action, reply: reply, at: at ?? now))
    }

    @Test("the same receipt twice in a batch is one fact; shown implies delivered, each stage counted once")
    func repeatsInOneBatch() throws {
        let batch = ReceiptBatch(
            [receipt(1, "delivered"), receipt(1, "delivered"), receipt(1, "displayed"), receipt(2, "displayed")],
            deliveries: [1: delivery(1), 2: delivery(2)], key: key)
        let answers = try batch.answers.map { try #require(try $0.get()) }
        #expect(answers.map(\.isRepeat) == [false, true, false, false])
        #expect(batch.inserted.map(\.event) == ["delivered", "displayed", "displayed"])
        #expect(batch.counters == [CounterKey("n1", .delivered): 2, CounterKey("n1", .displayed): 2])
        #expect(batch.changed.map(\.deliveryID) == [1, 2])
        #expect(batch.changed[0].stamps == ["delivered_at": now, "displayed_at": now])
        #expect(batch.webhooks.isEmpty)
    }

    @Test("one answer per delivery: a second, different answer in the same batch is refused, the first kept")
    func oneAnswer() {
        let batch = ReceiptBatch(
            [receipt(1, "action", action: "like"), receipt(1, "opened"), receipt(1, "action", action: "like")],
            deliveries: [1: delivery(1)], key: key)
        guard case .failure(let error) = batch.answers[1] else {
            Issue.record("a second answer was recorded: \(batch.answers[1])")
            return
        }
        #expect(error.code == .conflict)
        #expect((try? batch.answers[2].get())?.isRepeat == true)
        #expect(batch.inserted.map(\.event) == ["action"])
        #expect(batch.counters[CounterKey("n1", .opened)] == nil)
        #expect(batch.webhooks.count == 1)
        #expect(batch.changed.first?.action == "like")
    }

    @Test("a reply sent again with another text replaces it, whether its row is new in this batch or older")
    func replies() {
        var older = delivery(2)
        older.feedback = [
            .init(rowID: 7, deliveryID: 2, notificationID: "n1", event: "action", action: "reply", reply: "hi", at: now)
        ]
        older.reply = "hi"
        let batch = ReceiptBatch(
            [
                receipt(1, "action", action: "reply", reply: "first"),
                receipt(1, "action", action: "reply", reply: "second"),
                receipt(2, "action", action: "reply", reply: "again"),
            ], deliveries: [1: delivery(1), 2: older], key: key)
        #expect(batch.inserted.map(\.reply) == ["second"])
        #expect(batch.replacedReplies == [7: "again"])
        #expect(batch.counters[CounterKey("n1", .replies)] == 1)
        #expect(batch.changed.map(\.reply) == ["second", "again"])
        #expect((try? batch.answers[1].get())?.replacedReply == true)
    }

    @Test("claims are checked one by one: another app, a made-up apns-id, another token, no such delivery")
    func claims() {
        let forged = DeliveryMessageID(notificationID: "n2", deliveryID: 1, key: key)
        let batch = ReceiptBatch(
            [
                receipt(1, "delivered", app: "app2"), receipt(1, "delivered", apnsID: forged),
                receipt(1, "delivered", token: "bb22"), receipt(9, "delivered"), receipt(1, "delivered", token: nil),
            ], deliveries: [1: delivery(1)], key: key)
        #expect(batch.answers.map { (try? $0.get())?.map(\.deliveryID) } == [nil, nil, nil, nil, 1])
        #expect(batch.inserted.count == 1)
        #expect(batch.latestReceipt.keys.sorted() == ["app1"])
    }

    @Test("a receipt naming an apns-id made before the mask (sent before an upgrade) is still its delivery's")
    func legacyAPNSID() throws {
        // One legacy form in 64 looks masked (its version and variant bits happen to match) and is read as the new
        // form: with a random key this test failed one run in 64. A key whose form of delivery 3 does not, found
        // the same way every run.
        func legacy(_ key: MessageKey) -> String {
            DeliveryMessageID.Maker(notificationID: "n1", key: key).legacyString(for: 3)
        }
        let key = try #require(
            (UInt8(0)...UInt8(255)).lazy.map { MessageKey(SymmetricKey(data: [UInt8](repeating: $0, count: 32))) }
                .first { DeliveryMessageID(legacy($0), key: $0)?.isLegacy == true })
        let message = try #require(DeliveryMessageID(legacy(key), key: key))
        #expect(message.isLegacy)
        let batch = ReceiptBatch(
            [receipt(3, "delivered", apnsID: message)], deliveries: [3: delivery(3)], key: key)
        #expect((try batch.answers[0].get())?.deliveryID == 3)
    }

    @Test("times outside the window are kept in it; outcomes count once each")
    func windowAndOutcomes() {
        var outcome = receipt(1, "outcome")
        outcome.event.outcome = .extensionTimeout
        let batch = ReceiptBatch(
            [receipt(1, "delivered", at: .distantFuture), receipt(1, "displayed", at: .distantPast), outcome, outcome],
            deliveries: [1: delivery(1)], key: key)
        let answers = batch.answers.map { try? $0.get() }
        #expect(answers[0]?.recordedAt == now)
        #expect(answers[1]?.recordedAt == queued)
        #expect(answers[0]?.timeAdjusted != nil && answers[1]?.timeAdjusted != nil)
        #expect(batch.counters[CounterKey("n1", .outcome, DeliveryOutcome.extensionTimeout.rawValue)] == 1)
        #expect(batch.changed.first?.outcome == DeliveryOutcome.extensionTimeout.rawValue)
        #expect(batch.latestReceipt["app1"] == now)
    }
}
