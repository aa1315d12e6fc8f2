import APNSCore
import Foundation
import Testing

@testable import ProviderStorage
@testable import PushProvider

/// Each verdict from the facts that decide it: the provider's queue and APNs' answer, the device's reports, and the
/// local APNs' log.
@Suite("Delivery verdicts: one sentence and the next step per device")
struct DeliveryVerdictTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func trace(_ state: DeliveryState, change: (inout DeliveryTrace) -> Void = { _ in }) -> DeliveryTrace {
        var trace = DeliveryTrace(
            apnsID: "00000000-0000-4000-8000-000000000001", notificationID: "N", appID: "app", token: "aa",
            state: state, attempts: 1, queuedAt: now, notBefore: now, leaseUntil: nil, status: nil, reason: nil,
            apnsUniqueID: nil, answeredAt: nil, deliveredAt: nil, displayedAt: nil, openedAt: nil, dismissedAt: nil,
            action: nil, reply: nil, reports: [])
        change(&trace)
        return trace
    }

    static let cases: [(String, DeliveryTrace, String, String)] = [
        (
            "a reply",
            trace(.accepted) {
                $0.displayedAt = now; $0.reply = "yes"
            }, "replied", "replied \"yes\""
        ),
        ("an action", trace(.accepted) { $0.action = "like" }, "acted", "action like"),
        ("a tap", trace(.accepted) { $0.openedAt = now }, "opened", "tapped"),
        ("a dismissal", trace(.accepted) { $0.dismissedAt = now }, "dismissed", "dismissed"),
        ("shown", trace(.accepted) { $0.displayedAt = now }, "shown", "shown to the person"),
        (
            "the extension failed",
            trace(.accepted) {
                $0.displayedAt = now
                $0.outcomes = ["extensionFailed"]
                $0.outcomeDetail = "extensionFailed: fail: boom"
            }, "shownOriginal", "the service extension failed: fail: boom"
        ),
        (
            "the extension ran out of time",
            trace(.accepted) {
                $0.displayedAt = now; $0.outcomes = ["extensionTimeout"]
            },
            "shownBestAttempt", "best attempt"
        ),
        (
            "the attachment was refused",
            trace(.accepted) {
                $0.displayedAt = now
                $0.outcomes = ["attachmentDropped"]
                $0.outcomeDetail = "attachmentDropped: is text/html"
            }, "shownWithoutAttachment", "without its attachment: is text/html"
        ),
        (
            "not authorized",
            trace(.accepted) {
                $0.deliveredAt = now; $0.outcomes = ["notAuthorized"]
            }, "notShown",
            "has not allowed"
        ),
        ("alerts off", trace(.accepted) { $0.outcomes = ["alertsOff"] }, "notShown", "may not show alerts"),
        (
            "the foreground delegate", trace(.accepted) { $0.outcomes = ["foregroundNotPresented"] }, "notShown",
            "in the foreground"
        ),
        ("a background push", trace(.accepted) { $0.outcomes = ["background"] }, "background", "woken"),
        (
            "a Live Activity update taken", trace(.accepted) { $0.outcomes = ["activityUpdated"] }, "activityUpdated",
            "took it"
        ),
        (
            "a Live Activity update with an older timestamp",
            trace(.accepted) {
                $0.outcomes = ["activityIgnored"]
                $0.outcomeDetail = "activityIgnored: an older or equal timestamp"
            }, "activityIgnored", "took nothing from it: an older or equal timestamp"
        ),
        ("delivered only", trace(.accepted) { $0.deliveredAt = now }, "delivered", "reached the app"),
        ("no report", trace(.accepted) { $0.answeredAt = now }, "awaitingDevice", "has not reported it"),
        (
            "410",
            trace(.rejected) {
                $0.status = 410; $0.reason = "Unregistered"
            }, "tokenGone",
            "no longer valid"
        ),
        (
            "BadDeviceToken",
            trace(.rejected) {
                $0.status = 400; $0.reason = "BadDeviceToken"
            }, "rejected",
            "not one of this environment's"
        ),
        (
            "a storm",
            trace(.rejected) {
                $0.status = 503; $0.reason = "ServiceUnavailable"; $0.attempts = 4
            },
            "gaveUp", "sent 4 times"
        ),
        (
            "a retry",
            trace(.queued) {
                $0.status = 500; $0.reason = "InternalServerError"; $0.notBefore = now + 4
            },
            "retrying", "the next attempt is at"
        ),
        (
            "scheduled",
            trace(.queued) {
                $0.attempts = 0; $0.notBefore = now + 3600
            }, "scheduled",
            "scheduled: it is sent at"
        ),
        ("queued", trace(.queued) { $0.attempts = 0 }, "queued", "not sent yet"),
        ("in flight", trace(.leased), "sending", "being sent"),
    ]

    @Test("each fact decides its verdict", arguments: cases)
    func verdicts(_ name: String, _ trace: DeliveryTrace, _ kind: String, _ words: String) {
        let verdict = DeliveryVerdict.of(trace, now: Self.now)
        #expect(verdict.verdict == kind, "\(name): \(verdict)")
        #expect(verdict.sentence.contains(words), "\(name): \(verdict.sentence)")
        let undecided = ["awaitingDevice", "retrying", "scheduled", "queued", "sending", "delivered"]
        #expect(verdict.decided == !undecided.contains(kind), "\(name)")
        #expect(verdict.decided || verdict.waitingFor != nil, "an undecided verdict says what it waits for")
    }

    static let gatewayCases: [(String, GatewayLogEntry.Event, String)] = [
        ("stored", .init(event: "stored", time: now), "storedOffline"),
        (
            "a collapse ID",
            .init(
                event: "replaced", time: now, detail: "a newer notification with the same collapse ID replaced it",
                replacedBy: "b"), "replaced"
        ),
        (
            "coalesced",
            .init(event: "replaced", time: now, detail: "an offline device keeps only the newest", replacedBy: "b"),
            "coalesced"
        ),
        ("expired", .init(event: "expired", time: now, detail: "its deadline passed"), "expired"),
        ("discarded", .init(event: "discarded", time: now, detail: "apns-expiration is 0"), "discarded"),
        ("forwarded", .init(event: "forwarded", time: now), "awaitingDevice"),
    ]

    @Test("the local APNs' log says what became of a push no device reported", arguments: gatewayCases)
    func gateway(_ name: String, _ last: GatewayLogEntry.Event, _ kind: String) {
        let entry = GatewayLogEntry(events: [.init(event: "received", time: Self.now), last])
        let verdict = DeliveryVerdict.of(Self.trace(.accepted), gateway: entry, now: Self.now)
        #expect(verdict.verdict == kind, "\(name): \(verdict)")
        // A device's report outranks the log.
        let shown = Self.trace(.accepted) { $0.displayedAt = Self.now }
        #expect(DeliveryVerdict.of(shown, gateway: entry, now: Self.now).verdict == "shown")
    }

    @Test("edges: an apns-expiration of 2^63-1, a gateway time of 1e30, an empty log, a detail of 2048 characters")
    func edges() {
        var trace = Self.trace(.accepted)
        trace.expiration = Int.max
        let stored = GatewayLogEntry(events: [.init(event: "stored", time: Self.now)])
        #expect(DeliveryVerdict.of(trace, gateway: stored, now: Self.now).verdict == "storedOffline")
        trace.expiration = -1
        #expect(!DeliveryVerdict.of(trace, gateway: stored, now: Self.now).sentence.contains("apns-expiration"))
        let huge = GatewayLogEntry(json: ["events": [["event": "expired", "time": 1e30]]])
        #expect(huge?.events.first?.time == nil, "a time past any date is dropped, not trapped on")
        #expect(
            DeliveryVerdict.of(trace, gateway: GatewayLogEntry(events: []), now: Self.now).verdict == "awaitingDevice")
        trace.outcomes = ["extensionFailed", "no-such-outcome"]
        trace.outcomeDetail = String(repeating: "x", count: 2048)
        trace.displayedAt = Self.now
        #expect(DeliveryVerdict.of(trace, now: Self.now).verdict == "shownOriginal")
    }

    @Test("a breakdown counts each delivery once, by its furthest step, from the counters")
    func breakdown() {
        var stats = NotificationReport.Stats()
        stats.targeted = 10
        stats.accepted = 8
        stats.rejected = ["Unregistered": 1, "BadDeviceToken": 1]
        stats.delivered = 7
        stats.displayed = 5
        stats.opened = 2
        stats.actions = ["like": 1]
        stats.outcomes = ["notAuthorized": 1, "extensionFailed": 1, "background": 1]
        let breakdown = NotificationBreakdown(notificationID: "N", stats: stats)
        let counts = Dictionary(uniqueKeysWithValues: breakdown.verdicts.map { ($0.verdict, $0.count) })
        #expect(
            counts == [
                "opened": 2, "acted": 1, "shown": 1, "shownOriginal": 1, "notShown": 1, "background": 1,
                "awaitingDevice": 1, "rejected": 1, "tokenGone": 1,
            ], "\(counts)")
        #expect(counts.values.reduce(0, +) == stats.targeted, "every device in exactly one verdict")
        #expect(breakdown.undecided == 1)
        #expect(breakdown.verdicts.first { $0.verdict == "rejected" }?.reasons == ["BadDeviceToken": 1])
    }
}
