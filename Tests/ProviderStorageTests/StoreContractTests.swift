import Crypto
import Foundation
import GRDB
import Logging
import PostgresNIO
import TestPacing
import Testing

@testable import ProviderStorage

/// What every ``ProviderStore`` promises, run on each: SQLite always, PostgreSQL when `HERALD_TEST_POSTGRES` names a
/// database (as `.ci/run` sets it). Times are given, never waited for: a lease "runs out" because the test says
/// it is later.
@Suite("The store contract: leases, crash recovery, exactly-once results, one schema", .startsServers)
struct StoreContractTests {
    /// The stores this machine can run.
    static let kinds: [StoreKind] =
        [.sqlite] + (ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"].map { [.postgres(url: $0)] } ?? [])

    @Test("a lease that runs out goes back to the queue; the dead worker's late answer is ignored", arguments: kinds)
    func leaseExpiry(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await fixture.notification(tokens: 3, at: t0)
            let first = try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30)
            #expect(first.count == 3 && first.allSatisfy { $0.attempts == 1 })
            #expect(try await fixture.store.lease(owner: "b", limit: 10, now: t0, leaseFor: 30).isEmpty)
            #expect(try await fixture.store.reclaimExpiredLeases(now: t0 + 29) == 0)
            #expect(try await fixture.store.reclaimExpiredLeases(now: t0 + 31) == 3)
            #expect(try await fixture.store.queueDepth() == 3)
            let second = try await fixture.store.lease(owner: "b", limit: 10, now: t0 + 31, leaseFor: 30)
            #expect(second.map(\.id) == first.map(\.id) && second.allSatisfy { $0.attempts == 2 })
            // The first worker was only slow: its answer comes after its lease ran out, and is not recorded.
            try await fixture.store.record(
                first.map { .accepted(id: $0.id, notificationID: $0.notificationID, uniqueID: nil, at: t0 + 32) },
                owner: "a")
            #expect(try await fixture.stats(id).accepted == 0)
            #expect(try await fixture.traces(id).allSatisfy { $0.state == .leased })
            try await fixture.store.record(
                second.map { .accepted(id: $0.id, notificationID: $0.notificationID, uniqueID: nil, at: t0 + 33) },
                owner: "b")
            let stats = try await fixture.stats(id)
            #expect(stats.accepted == 3 && stats.queued == 0 && stats.inFlight == 0)
            #expect(try await fixture.traces(id).allSatisfy { $0.state == .accepted && $0.attempts == 2 })
        }
    }

    @Test("the queue's depth is exact up to the limit asked; PostgreSQL stops counting there", arguments: kinds)
    func queueDepthLimit(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            _ = try await fixture.notification(tokens: 5, at: t0)
            for limit in [5, 100, Int.max] {
                #expect(try await fixture.store.queueDepth(exactUpTo: limit) == 5, "exactUpTo \(limit)")
            }
            // Fresh from the fan-out (on PostgreSQL, in a range whose span is its count here): past the limit too.
            for limit in [-1, 0, 1, 4] {
                #expect(try await fixture.store.queueDepth(exactUpTo: limit) == 5, "exactUpTo \(limit)")
            }
            // Back in the queue, each delivery a row of its own.
            #expect(try await fixture.store.lease(owner: "a", limit: 5, now: t0, leaseFor: 30).count == 5)
            #expect(try await fixture.store.releaseLeases(owner: "a") == 5)
            for limit in [-1, 0, 1, 4] {
                let depth = try await fixture.store.queueDepth(exactUpTo: limit)
                switch kind {
                case .sqlite:
                    #expect(depth == 5, "SQLite always counts: exactUpTo \(limit)")
                case .postgres:
                    // Counted up to the limit and one more; the table was never analyzed, so its statistics add
                    // nothing: the answer shows the count stopped there.
                    #expect(depth == max(limit, 0) + 1, "exactUpTo \(limit)")
                }
            }
            #expect(try await fixture.store.queueDepth(exactUpTo: 5) == 5)
            _ = try await fixture.store.lease(owner: "a", limit: 2, now: t0, leaseFor: 30)
            #expect(try await fixture.store.queueDepth(exactUpTo: 3) == 3)
        }
    }

    @Test(
        "a later stage implies the earlier ones: each delivery counts once at every stage it reached, whichever receipts came and in any order",
        arguments: kinds)
    func stagesImplied(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let (id, leased) = try await fixture.accepted(tokens: 4, at: t0)
            func report(_ delivery: Int, _ event: String, at seconds: Double, action: String? = nil) async throws {
                let recorded = try await fixture.report(
                    leased[delivery], of: id, FeedbackEvent(event: event, action: action, at: t0 + seconds))
                #expect(recorded != nil)
            }
            // 0: only shown (a foreground push without mutable-content reports no delivered).
            try await report(0, "displayed", at: 2)
            // 1: shown before delivered arrived, then delivered.
            try await report(1, "displayed", at: 3)
            try await report(1, "delivered", at: 2)
            // 2: only the tap reached the provider.
            try await report(2, "opened", at: 4)
            // 3: an action, then its displayed and delivered late.
            try await report(3, "action", at: 5, action: "like")
            try await report(3, "displayed", at: 3)
            try await report(3, "delivered", at: 2)
            let stats = try await fixture.stats(id)
            #expect(stats.delivered == 4, "every delivery reached the phone")
            #expect(stats.displayed == 4, "every delivery was shown")
            #expect(stats.opened == 1)
            #expect(stats.actions == ["like": 1])
            let traces = try await fixture.traces(id)
            #expect(traces.allSatisfy { $0.deliveredAt != nil && $0.displayedAt != nil })
            // The device's reports are listed in the phone's order, not the order they arrived in.
            let reports = try #require(try await fixture.store.delivery(id: leased[3].id)).reports.map(\.event)
            #expect(reports == ["delivered", "displayed", "action"])
        }
    }

    @Test(
        "one receipt of each kind per delivery whatever its time; one answer per delivery; a reply sent again replaces the text",
        arguments: kinds)
    func receiptsAreFacts(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let (id, leased) = try await fixture.accepted(tokens: 2, at: t0)
            func report(_ delivery: Int, _ event: String, _ action: String? = nil, reply: String? = nil, at: Double)
                async throws -> DeliveryContext
            {
                try #require(
                    try await fixture.report(
                        leased[delivery], of: id, FeedbackEvent(event: event, action: action, reply: reply, at: t0 + at)
                    ))
            }
            #expect(try await report(0, "opened", at: 2).isRepeat == false)
            #expect(try await report(0, "opened", at: 2.001).isRepeat == true)
            #expect(try await report(0, "delivered", at: 3).isRepeat == false)
            #expect(try await report(0, "delivered", at: 9).isRepeat == true)
            await #expect(throws: ProviderError.self) { _ = try await report(0, "action", "like", at: 4) }
            await #expect(throws: ProviderError.self) { _ = try await report(0, "dismissed", at: 4) }
            #expect(try await report(1, "action", "reply", reply: "first", at: 3).isRepeat == false)
            let again = try await report(1, "action", "reply", reply: "second", at: 4)
            #expect(again.isRepeat && again.replacedReply)
            #expect(try await report(1, "action", "reply", reply: "second", at: 5).replacedReply == false)
            let stats = try await fixture.stats(id)
            #expect(stats.delivered == 2 && stats.displayed == 2)
            #expect(stats.opened == 1 && stats.dismissed == 0 && stats.replies == 1)
            #expect(stats.actions == ["reply": 1])
            let first = try #require(try await fixture.store.delivery(id: leased[0].id))
            #expect(first.reports.map(\.event) == ["opened", "delivered"])
            let second = try #require(try await fixture.store.delivery(id: leased[1].id))
            #expect(second.reply == "second" && second.reports.count == 1)
        }
    }

    @Test(
        "the webhook outbox: written with the response, leased by one owner at a time, retried, dead, retried on demand; two secrets kept",
        arguments: kinds)
    func webhookOutbox(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let store = fixture.store
            var app = try #require(try await store.app(id: fixture.appID))
            app.app.webhookURL = "https://hooks.example/h"
            try await store.updateApp(app)
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let (id, leased) = try await fixture.accepted(tokens: 2, at: t0)
            func report(_ delivery: Int, _ event: String, _ action: String? = nil, reply: String? = nil)
                async throws
            {
                _ = try await fixture.report(
                    leased[delivery], of: id, FeedbackEvent(event: event, action: action, reply: reply, at: t0 + 2))
            }
            try await report(0, "delivered")
            try await report(0, "opened")
            try await report(1, "action", "like", reply: "hi")
            try await report(1, "action", "like", reply: "changed")
            let events = try await store.leaseWebhooks(owner: "a", limit: 10, now: t0 + 10, leaseFor: 60, skipping: [])
            #expect(events.count == 2, "one event per response; delivered and a repeat make none")
            let bodies = events.map { (try? JSONSerialization.jsonObject(with: $0.body)) as? [String: Any] ?? [:] }
            #expect(bodies.map { $0["event"] as? String } == ["opened", "action"])
            #expect(bodies[1]["text"] as? String == "hi" && bodies[1]["action"] as? String == "like")
            #expect(events.allSatisfy { $0.eventID.hasPrefix("msg_") && $0.url == "https://hooks.example/h" })
            #expect(events.allSatisfy { $0.batchLimit == 1 }, "each event alone unless the app says otherwise")
            #expect(
                try await store.leaseWebhooks(owner: "b", limit: 10, now: t0 + 11, leaseFor: 60, skipping: []).isEmpty)
            try await store.webhookFailed(id: events[0].id, error: "503", retryAt: t0 + 20, at: t0 + 10)
            try await store.webhookSent(ids: [events[1].id])
            #expect(
                try await store.leaseWebhooks(owner: "b", limit: 10, now: t0 + 15, leaseFor: 60, skipping: []).isEmpty)
            let again = try await store.leaseWebhooks(owner: "b", limit: 10, now: t0 + 21, leaseFor: 60, skipping: [])
            #expect(again.map(\.id) == [events[0].id] && again.first?.attempts == 1)
            #expect(again.first?.eventID == events[0].eventID, "the same webhook-id on every attempt")
            try await store.webhookFailed(id: events[0].id, error: "503 again", retryAt: nil, at: t0 + 21)
            let dead = try await store.webhookEvents(appID: fixture.appID, state: .dead, after: 0, limit: 10)
            #expect(dead.map(\.lastError) == ["503 again"] && dead.first?.attempts == 2)
            let counts = try await store.webhookCounts()
            #expect(counts.pending == 0 && counts.dead == 1 && counts.oldestPending == nil)
            #expect(try await store.retryDeadWebhooks(appID: fixture.appID, at: t0 + 30) == 1)
            // The app's batch size as it is when the event is leased, kept across restarts of the store.
            var batching = try #require(try await store.app(id: fixture.appID))
            batching.app.webhookBatch = 10
            try await store.updateApp(batching)
            #expect(try await store.app(id: fixture.appID)?.app.webhookBatch == 10)
            let retried = try await store.leaseWebhooks(owner: "c", limit: 10, now: t0 + 30, leaseFor: 60, skipping: [])
            #expect(retried.count == 1 && retried.first?.attempts == 0 && retried.first?.batchLimit == 10)
            try await store.releaseWebhooks(ids: retried.map(\.id), dueAt: t0 + 40)
            #expect(
                try await store.leaseWebhooks(owner: "c", limit: 10, now: t0 + 35, leaseFor: 60, skipping: []).isEmpty)
            // An endpoint the sender serves already is skipped: its event waits for it, another's is leased.
            let skipped = try await store.leaseWebhooks(
                owner: "c", limit: 10, now: t0 + 41, leaseFor: 60, skipping: ["https://hooks.example/h", "https://x/'"])
            #expect(skipped.isEmpty)
            #expect(
                try await store.leaseWebhooks(
                    owner: "c", limit: 10, now: t0 + 41, leaseFor: 60, skipping: ["https://other.example/h"]
                ).count == 1)
            for (index, secret) in ["s1", "s2", "s3"].enumerated() {
                try await store.addWebhookSecret(appID: fixture.appID, sealed: secret, at: t0 + Double(index))
            }
            #expect(try await store.webhookSecrets(appID: fixture.appID).map(\.sealed) == ["s3", "s2"])
        }
    }

    @Test("a batch recorded twice counts once; a rejection deactivates its device", arguments: kinds)
    func exactlyOnce(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await fixture.notification(tokens: 3, at: t0)
            let leased = try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30)
            try #require(leased.count == 3)
            let gone = leased[2]
            let goneToken = try #require(gone.address.deviceToken)
            let batch: [DeliveryResult] = [
                .accepted(id: leased[0].id, notificationID: id, uniqueID: nil, at: t0 + 1),
                .accepted(id: leased[1].id, notificationID: id, uniqueID: nil, at: t0 + 1),
                .rejected(
                    id: gone.id, notificationID: id, status: 410, reason: "Unregistered", at: t0 + 1,
                    deactivate: .init(appID: fixture.appID, token: goneToken, at: t0 + 1, reason: "Unregistered")),
            ]
            try await fixture.store.record(batch, owner: "a")
            try await fixture.store.record(batch, owner: "a")
            let stats = try await fixture.stats(id)
            #expect(stats.accepted == 2)
            #expect(stats.rejected == ["Unregistered": 1])
            #expect(try await fixture.store.device(appID: fixture.appID, token: goneToken)?.active == false)
            let states = try await fixture.traces(id).map(\.state)
            #expect(states == [.accepted, .accepted, .rejected])
        }
    }

    @Test(
        "a daily notification's occurrence queues each token once, at its first time given, and never again",
        arguments: kinds)
    func occurrencesQueuedOnce(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = "n_\(UUID().uuidString.prefix(8).lowercased())"
            let daily = StoredNotification(
                id: id, appID: fixture.appID, target: "all", payload: Data(#"{"aps":{"alert":"x"}}"#.utf8),
                pushType: "alert", sendAt: t0, dailyAt: "09:00", targeted: 0, createdAt: t0)
            #expect(try await fixture.store.insertNotification(daily, target: .all, requireKey: false) == 0)
            let (a, b) = (String(repeating: "a", count: 64), String(repeating: "b", count: 64))
            let written = try await fixture.store.insertOccurrences(
                notificationID: id, appID: fixture.appID, occurrence: "2033-05-18",
                times: [(a, t0 + 10), (b, t0 + 20), (a, t0 + 30)])
            #expect(written == 2)
            let again = try await fixture.store.insertOccurrences(
                notificationID: id, appID: fixture.appID, occurrence: "2033-05-18", times: [(a, t0 + 40)])
            #expect(again == 0)
            let traces = try await fixture.traces(id)
            #expect(traces.map(\.token) == [a, b])
            #expect(traces.map(\.notBefore) == [t0 + 10, t0 + 20])
            #expect(traces.allSatisfy { $0.state == .queued })
            #expect(try await fixture.store.lease(owner: "w", limit: 10, now: t0 + 15, leaseFor: 30).count == 1)
        }
    }

    @Test(
        "an apns-unique-id reads back as APNs sent it: a UUID in lower or upper case, any other text, none",
        arguments: kinds)
    func uniqueIDsReadBack(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await fixture.notification(tokens: 4, at: t0)
            let leased = try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30)
            try #require(leased.count == 4)
            let sent: [String?] = [
                "8d2c6c3e-2a54-4b8b-9a53-3c1f2f0c6d11", "8D2C6C3E-2A54-4B8B-9A53-3C1F2F0C6D12", "not a uuid", nil,
            ]
            try await fixture.store.record(
                zip(leased, sent).map { .accepted(id: $0.id, notificationID: id, uniqueID: $1, at: t0 + 1) },
                owner: "a")
            #expect(try await fixture.traces(id).map(\.apnsUniqueID) == sent)
        }
    }

    @Test(
        "APNs' 410 time is whole milliseconds: a registration within that millisecond is deactivated, a later one kept",
        arguments: kinds)
    func unregisteredWithinTheMillisecond(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await fixture.notification(tokens: 2, at: t0)
            let leased = try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30)
            let tokens = try leased.map { try #require($0.address.deviceToken) }
            try #require(tokens.count == 2)
            // Registered again 0.4 ms and 1.5 ms after the millisecond APNs reports (t0 + 1 s, rounded down).
            let invalidAt = t0 + 1
            _ = try await fixture.store.upsertDevice(
                appID: fixture.appID, DeviceInput(token: tokens[0]), at: invalidAt + 0.0004)
            _ = try await fixture.store.upsertDevice(
                appID: fixture.appID, DeviceInput(token: tokens[1]), at: invalidAt + 0.0015)
            try await fixture.store.record(
                leased.map { delivery in
                    .rejected(
                        id: delivery.id, notificationID: id, status: 410, reason: "Unregistered", at: t0 + 2,
                        deactivate: .init(
                            appID: fixture.appID, token: delivery.address.deviceToken ?? "", at: invalidAt,
                            reason: "Unregistered"))
                }, owner: "a")
            let within = try await fixture.store.device(appID: fixture.appID, token: tokens[0])
            let after = try await fixture.store.device(appID: fixture.appID, token: tokens[1])
            #expect(within?.active == false)
            #expect(after?.active == true)
        }
    }

    @Test(
        "deliveries whose notification is gone (an app deletion cut short) are never leased, and go; the rest are sent",
        arguments: kinds)
    func orphanedDeliveries(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let gone = try await fixture.notification(tokens: 3, at: t0)
            try await fixture.deleteNotificationRowOnly(gone)
            let kept = try await fixture.notification(tokens: 2, at: t0 + 1)
            let first = try await fixture.store.lease(owner: "a", limit: 10, now: t0 + 1, leaseFor: 30)
            #expect(first.map(\.notificationID) == [kept, kept])
            try await fixture.store.record(
                first.map { .accepted(id: $0.id, notificationID: kept, uniqueID: nil, at: t0 + 2) }, owner: "a")
            // Past any lease they could have had: none comes back to the queue.
            _ = try await fixture.store.reclaimExpiredLeases(now: t0 + 60)
            let later = try await fixture.store.lease(owner: "b", limit: 10, now: t0 + 61, leaseFor: 30)
            #expect(later.isEmpty)
            #expect(try await fixture.store.queueDepth() == 0)
            #expect(try await fixture.deliveryRows() == 2, "the gone notification's deliveries are deleted")
        }
    }

    @Test(
        "deliveries whose notification is gone go even when the expired-lease sweep comes before any lease",
        arguments: kinds)
    func orphanedDeliveriesSweptFirst(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let gone = try await fixture.notification(tokens: 3, at: t0)
            try await fixture.deleteNotificationRowOnly(gone)
            _ = try await fixture.store.reclaimExpiredLeases(now: t0)
            #expect(try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30).isEmpty)
            _ = try await fixture.store.reclaimExpiredLeases(now: t0 + 60)
            #expect(try await fixture.store.lease(owner: "b", limit: 10, now: t0 + 61, leaseFor: 30).isEmpty)
            #expect(try await fixture.store.queueDepth() == 0)
            #expect(try await fixture.deliveryRows() == 0, "the gone notification's deliveries are deleted")
        }
    }

    @Test(
        "a retry waits for its time; a stopping worker gives its leases back without spending an attempt",
        arguments: kinds)
    func retryAndRelease(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            _ = try await fixture.notification(tokens: 2, at: t0)
            let leased = try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30)
            try #require(leased.count == 2)
            try await fixture.store.record(
                [.retry(id: leased[0].id, reason: "ServiceUnavailable", notBefore: t0 + 60)], owner: "a")
            #expect(try await fixture.store.queueDepth() == 1)
            #expect(try await fixture.store.lease(owner: "b", limit: 10, now: t0 + 59, leaseFor: 30).isEmpty)
            #expect(try await fixture.store.releaseLeases(owner: "a") == 1)
            let later = try await fixture.store.lease(owner: "b", limit: 10, now: t0 + 60, leaseFor: 30)
            #expect(later.map(\.id) == leased.map(\.id))
            #expect(later.map(\.attempts) == [2, 1], "the released one was never sent: its attempt is given back")
        }
    }

    @Test(
        "waiting for APNs gives the attempt back; a wake moves the app's parked deliveries to now, and no others",
        arguments: kinds)
    func waitAndWake(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            _ = try await fixture.notification(tokens: 3, at: t0)
            let leased = try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30)
            try #require(leased.count == 3)
            try await fixture.store.record(
                [
                    .wait(id: leased[0].id, reason: "APNsUnreachable", notBefore: t0 + 1),
                    .wait(id: leased[1].id, reason: "APNsUnreachable", notBefore: t0 + 300),
                    .retry(id: leased[2].id, reason: "ServiceUnavailable", notBefore: t0 + 300),
                ], owner: "a")
            #expect(try await fixture.store.queueDepth() == 3)
            #expect(
                try await fixture.store.wakeWaiting(appID: "app_other", reason: "APNsUnreachable", now: t0 + 2) == 0)
            #expect(
                try await fixture.store.wakeWaiting(appID: fixture.appID, reason: "APNsUnreachable", now: t0 + 2) == 1,
                "the parked one moves; the one due already and the retry do not")
            let again = try await fixture.store.lease(owner: "b", limit: 10, now: t0 + 2, leaseFor: 30)
            #expect(Set(again.map(\.id)) == Set(leased.prefix(2).map(\.id)))
            #expect(again.map(\.attempts) == [1, 1], "waiting spent no attempt")
        }
    }

    @Test(
        "a lease call whose answer was lost is put back by the end it gave its leases, and no other call's",
        arguments: kinds)
    func releaseOneLease(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await fixture.notification(tokens: 4, at: t0)
            let kept = try await fixture.store.lease(owner: "a", limit: 2, now: t0, leaseFor: 30)
            // The engine's next call is 10 µs later; this is the one whose answer the worker never saw.
            let lost = try await fixture.store.lease(owner: "a", limit: 2, now: t0 + 0.000_01, leaseFor: 30)
            try #require(kept.count == 2 && lost.count == 2)
            #expect(try await fixture.store.releaseLease(owner: "b", until: t0 + 0.000_01 + 30) == 0)
            #expect(try await fixture.store.releaseLease(owner: "a", until: t0 + 0.000_01 + 30) == 2)
            #expect(try await fixture.store.queueDepth() == 2)
            let again = try await fixture.store.lease(owner: "a", limit: 10, now: t0 + 1, leaseFor: 30)
            #expect(again.map(\.id) == lost.map(\.id))
            #expect(again.allSatisfy { $0.attempts == 1 }, "never sent: the attempt is given back")
            try await fixture.store.record(
                kept.map { .accepted(id: $0.id, notificationID: $0.notificationID, uniqueID: nil, at: t0 + 2) },
                owner: "a")
            #expect(try await fixture.stats(id).accepted == 2, "the other call's leases held")
        }
    }

    @Test("a provider killed while holding leases finds them queued when it opens its SQLite file again")
    func sqliteCrashRecovery() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("provider.sqlite").path
        let t0 = Date(timeIntervalSince1970: 2_000_000_000)
        let first = StoreFixture(store: try SQLiteStore(path: path, messageKey: SymmetricKey(size: .bits256)))
        try await first.seed()
        _ = try await first.notification(tokens: 4, at: t0)
        #expect(try await first.store.lease(owner: "killed", limit: 10, now: t0, leaseFor: 3600).count == 4)
        await first.store.close()  // nothing recorded, nothing released: as after kill -9
        let reopened = try SQLiteStore(path: path, messageKey: SymmetricKey(size: .bits256))
        #expect(try await reopened.queueDepth() == 4)
        #expect(try await reopened.lease(owner: "next", limit: 10, now: t0, leaseFor: 30).count == 4)
        await reopened.close()
    }

    @Test(
        "an import keeps every field as given (quotes, backslashes, control characters and all); tags change only when given",
        arguments: kinds)
    func importedFields(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let odd = "a \"quoted\" \\ back\\slash, a tab\t, a newline\n, \u{1}, 雪 and 🚀"
            var first = DeviceInput(token: String(repeating: "AB", count: 32))
            first.userID = "first"
            var rich = DeviceInput(token: String(repeating: "ab", count: 32))
            rich.userID = odd
            rich.tags = [odd, "beta", "beta"]
            rich.locale = "zh_CN"
            rich.timeZone = "Asia/Shanghai"
            rich.appVersion = "1.0\u{1F}"
            rich.publicKey = "k\"ey"
            let plain = DeviceInput(token: String(repeating: "cd", count: 32))
            let created = try await fixture.store.upsertDevices(appID: fixture.appID, [first, plain, rich], at: t0)
            #expect(created == 2)
            let stored = try #require(try await fixture.store.device(appID: fixture.appID, token: rich.token))
            #expect(stored.userID == odd)
            #expect(Set(stored.tags) == [odd, "beta"])
            #expect(stored.locale == "zh_CN" && stored.timeZone == "Asia/Shanghai")
            #expect(stored.appVersion == "1.0\u{1F}" && stored.publicKey == "k\"ey")
            let tagged = try await fixture.store.devices(DeviceQuery(appID: fixture.appID, tag: odd, limit: 10))
            #expect(tagged.map(\.token) == [rich.token])
            let bare = try #require(try await fixture.store.device(appID: fixture.appID, token: plain.token))
            #expect(bare.userID == nil && bare.tags == [] && bare.locale == nil)

            // Again without tags: the fields given change, the tags stay.
            var again = DeviceInput(token: rich.token.uppercased())
            again.userID = "second"
            #expect(try await fixture.store.upsertDevices(appID: fixture.appID, [again], at: t0 + 1) == 0)
            let updated = try #require(try await fixture.store.device(appID: fixture.appID, token: rich.token))
            #expect(updated.userID == "second" && Set(updated.tags) == [odd, "beta"] && updated.locale == "zh_CN")
        }
    }

    @Test(
        "PostgreSQL refuses a text with U+0000 as bad input (400), not as a database that failed (503, try again)",
        .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
    func nulIsBadInput() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        try await StoreFixture.with(.postgres(url: url)) { fixture in
            var input = DeviceInput(token: String(repeating: "ab", count: 32))
            input.locale = "zh\u{0}"
            let error = await #expect(throws: ProviderError.self) {
                _ = try await fixture.store.upsertDevices(appID: fixture.appID, [input], at: Date())
            }
            let message = error?.message ?? ""
            #expect(error?.code == .invalid)
            #expect(message.contains("U+0000"), "\(message)")
            let stored = try await fixture.store.device(appID: fixture.appID, token: input.token)
            #expect(stored == nil)
        }
    }

    @Test(
        "both schemas have the same tables, columns and NOT NULLs; PostgreSQL's view of a delivery has SQLite's columns",
        .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
    func schemasAgree() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        try await StoreFixture.with(.sqlite) { sqlite in
            try await StoreFixture.with(.postgres(url: url)) { postgres in
                var lite = try await sqlite.columns()
                var pg = try await postgres.columns()
                // Only processes that share one queue say they are alive; one SQLite file has one process.
                pg["provider_heartbeats"] = nil
                // PostgreSQL writes a delivery once and keeps its queue row and its result apart (v17), and queues a
                // fan-out's deliveries by ranges (v18); `delivery_view` joins them into the columns of SQLite's one
                // table (a view's are all nullable).
                let deliveries = (lite.removeValue(forKey: "deliveries") ?? []).map {
                    $0.replacingOccurrences(of: " NOT NULL", with: "")
                }
                #expect(deliveries == pg.removeValue(forKey: "delivery_view"), "SQLite's deliveries, PostgreSQL's view")
                for table in ["deliveries", "delivery_queue", "delivery_results", "delivery_ranges"] { pg[table] = nil }
                #expect(Set(lite.keys) == Set(pg.keys), "tables")
                for table in Set(lite.keys).intersection(pg.keys).sorted() {
                    #expect(lite[table] == pg[table], "table \(table): SQLite, then PostgreSQL")
                }
            }
        }
    }
}

/// A store to run the contract on.
enum StoreKind: Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres(url: String)

    var testDescription: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }
}

/// One empty store with one app.
struct StoreFixture {
    let store: any ProviderStore
    let appID = "app_contract"

    /// The pool's retries under load are its own business; a failure reaches the test as an error.
    static let quiet: Logger = {
        var logger = Logger(label: "contract")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` on a new empty store of `kind` with the app in it; closes it after.
    static func with(_ kind: StoreKind, _ body: (StoreFixture) async throws -> Void) async throws {
        let name = "contract_\(UUID().uuidString.prefix(8).lowercased())"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        let schema = "t_" + name
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any ProviderStore
        switch kind {
        case .sqlite:
            store = try SQLiteStore(
                path: directory.appendingPathComponent("provider.sqlite").path, messageKey: SymmetricKey(size: .bits256)
            )
        case .postgres(let url):
            store = try await PostgresStore(
                url: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, logger: Self.quiet,
                messageKey: SymmetricKey(size: .bits256))
        }
        let fixture = StoreFixture(store: store)
        do {
            try await fixture.seed()
            try await body(fixture)
        } catch {
            await fixture.dropAndClose(schema: schema)
            throw error
        }
        await fixture.dropAndClose(schema: schema)
    }

    /// Closes the store; on PostgreSQL, drops its schema first (thousands of runs left thousands of schemas behind).
    func dropAndClose(schema: String) async {
        if let postgres = store as? PostgresStore {
            _ = try? await postgres.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
        }
        await store.close()
    }

    /// Inserts the app.
    func seed() async throws {
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let app = ProviderApp(
            id: appID, name: "Contract", bundleID: "com.example.contract", environment: "development",
            endpoint: "https://api.sandbox.push.apple.com", hasCustomCA: false,
            authentication: .init(kind: "token", teamID: "DEF123GHIJ", keyID: "ABC123DEFG"),
            publishableKey: "pk_contract", webhookURL: nil, rateLimit: 0, createdAt: now, updatedAt: now)
        try await store.insertApp(
            StoredApp(
                app: app, sealedCredentials: Data([1]), caPEM: nil, categories: Data("{}".utf8),
                categoriesVersion: 0),
            apiKeyID: "key_contract", apiKeyHash: "hash_contract")
    }

    /// A notification to `tokens` new devices, due at `at`; its ID.
    /// A notification to `count` devices queued at `at`, leased by `a` and accepted by APNs a second later: its ID
    /// and its deliveries.
    func accepted(tokens count: Int, at: Date) async throws -> (id: String, deliveries: [LeasedDelivery]) {
        let id = try await notification(tokens: count, at: at)
        let leased = try await store.lease(owner: "a", limit: count, now: at, leaseFor: 30)
        try #require(leased.count == count)
        try await store.record(
            leased.map { .accepted(id: $0.id, notificationID: id, uniqueID: nil, at: at + 1) }, owner: "a")
        return (id, leased)
    }

    /// What a device reports about `delivery` of notification `id`, as the feedback route records it.
    func report(_ delivery: LeasedDelivery, of id: String, _ event: FeedbackEvent) async throws -> DeliveryContext? {
        let message = DeliveryMessageID(notificationID: id, deliveryID: delivery.id, key: store.messageKey)
        return try await store.recordFeedback(
            appID: appID, claim: FeedbackClaim(message: message, token: nil, now: event.at), event)
    }

    func notification(tokens count: Int, at: Date) async throws -> String {
        let tokens = (0..<count).map { String(format: "%064x", $0 + 1) }
        for token in tokens {
            _ = try await store.upsertDevice(appID: appID, DeviceInput(token: token), at: at - 60)
        }
        let id = "n_\(UUID().uuidString.prefix(8).lowercased())"
        let stored = StoredNotification(
            id: id, appID: appID, target: "tokens", payload: Data(#"{"aps":{"alert":"x"}}"#.utf8),
            pushType: "alert", sendAt: at, targeted: count, createdAt: at)
        let targeted = try await store.insertNotification(stored, target: .tokens(tokens), requireKey: false)
        #expect(targeted == count)
        return id
    }

    func stats(_ id: String) async throws -> NotificationReport.Stats {
        try #require(try await store.stats(notificationIDs: [id])[id])
    }

    func traces(_ id: String) async throws -> [DeliveryTrace] {
        try await store.deliveries(notificationID: id, after: 0, limit: 100)
    }

    /// Every table's columns, each as `name` or `name NOT NULL`, sorted; tables the migrations keep for themselves
    /// (GRDB's and PostgreSQL's migration bookkeeping) are left out.
    /// Deletes notification `id`'s row alone, as an app's deletion leaves it when the provider stops between deleting
    /// the app (its notifications with it) and deleting their deliveries.
    func deleteNotificationRowOnly(_ id: String) async throws {
        switch store {
        case let sqlite as SQLiteStore:
            try await sqlite.write { db in
                try db.execute(sql: "DELETE FROM notifications WHERE id = ?", arguments: [id])
            }
        case let postgres as PostgresStore:
            _ = try await postgres.rows("DELETE FROM notifications WHERE id = \(id)")
        default:
            Issue.record("an unknown store")
        }
    }

    /// How many delivery rows the store holds, whatever their state.
    func deliveryRows() async throws -> Int {
        switch store {
        case let sqlite as SQLiteStore:
            return try await sqlite.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM deliveries") ?? 0 }
        case let postgres as PostgresStore:
            return try await postgres.count("SELECT count(*) FROM deliveries")
        default:
            Issue.record("an unknown store")
            return 0
        }
    }

    func columns() async throws -> [String: [String]] {
        var tables: [String: [String]] = [:]
        switch store {
        case let sqlite as SQLiteStore:
            let rows = try await sqlite.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT m.name AS t, p.name AS c, p."notnull" AS n, p.pk AS pk
                        FROM sqlite_master m JOIN pragma_table_info(m.name) p
                        WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE 'grdb_%'
                        """
                ).map { row -> (String, String, Bool) in
                    let primary: Int = row["pk"]
                    let notNull: Int = row["n"]
                    return (row["t"], row["c"], notNull == 1 || primary > 0)
                }
            }
            for (table, column, notNull) in rows {
                tables[table, default: []].append(column + (notNull ? " NOT NULL" : ""))
            }
        case let postgres as PostgresStore:
            let rows = try await postgres.rows(
                """
                SELECT table_name::text, column_name::text, is_nullable::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name NOT IN ('herald_migrations')
                """)
            for row in rows {
                let (table, column, nullable) = try row.decode((String, String, String).self)
                tables[table, default: []].append(column + (nullable == "NO" ? " NOT NULL" : ""))
            }
        default:
            Issue.record("an unknown store")
        }
        return tables.mapValues { $0.sorted() }
    }
}
