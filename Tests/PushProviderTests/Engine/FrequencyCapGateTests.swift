import Foundation
import Testing

@testable import ProviderStorage
@testable import PushProvider

@Suite("FrequencyCapGate: what a batch may send under its caps, and what it logs")
struct FrequencyCapGateTests {
    let now = Date(timeIntervalSince1970: 1_900_000_000)
    let queue = InMemoryDeliveryQueue()

    func gate(limit: Int, window: Int = 86_400, enforced: Bool = true) -> FrequencyCapGate {
        let cap = FrequencyCap(category: "marketing", limit: limit, window: window, per: "user")
        let rule = FrequencyCapGate.Rule(category: "marketing", caps: [cap], enforced: enforced)
        return FrequencyCapGate(rules: ["n3": rule, "n4": rule, "n5": rule])
    }

    func delivery(_ notification: String, _ token: String) -> LeasedDelivery {
        LeasedDelivery(id: 1, notificationID: notification, appID: "a", address: .device(token: token), attempts: 1)
    }

    func sent(_ notifications: [String], ago seconds: TimeInterval) {
        for id in notifications {
            queue.recordCapSends(
                appID: "a", category: "marketing", notificationID: id, subjects: ["u:ana"],
                at: now.addingTimeInterval(-seconds))
        }
    }

    @Test("two sent an hour ago fill a cap of 2 a day; two days ago, they are out of the window")
    func window() async throws {
        sent(["n1", "n2"], ago: 3600)
        var full = gate(limit: 2)
        let settings = ["t1": DeviceSettings(locale: nil, timeZone: nil, attributes: nil, userID: "ana")]
        try await full.load([delivery("n3", "t1")], settings: settings, appID: "a", store: queue, now: now)
        let admitted1 = full.admits("n3", token: "t1", userID: "ana")
        #expect(!admitted1)
        var later = gate(limit: 2)
        try await later.load(
            [delivery("n3", "t1")], settings: settings, appID: "a", store: queue,
            now: now.addingTimeInterval(2 * 86_400))
        let admitted2 = later.admits("n3", token: "t1", userID: "ana")
        #expect(admitted2)
    }

    @Test("a notification already logged for the user (its other device, a retry) is not counted against itself")
    func itself() async throws {
        sent(["n1", "n3"], ago: 60)
        var gate = gate(limit: 2)
        try await gate.load([delivery("n3", "t2")], settings: [:], appID: "a", store: queue, now: now)
        let admitted3 = gate.admits("n3", token: "t2", userID: "ana")
        #expect(admitted3)
    }

    @Test("two notifications in one batch to one user under a cap of 1: the first goes, the second is capped")
    func inOneBatch() async throws {
        var gate = gate(limit: 1)
        try await gate.load(
            [delivery("n4", "t1"), delivery("n5", "t1")], settings: [:], appID: "a", store: queue, now: now)
        let admitted4 = gate.admits("n4", token: "t1", userID: "ana")
        #expect(admitted4)
        let admitted5 = gate.admits("n5", token: "t1", userID: "ana")
        #expect(!admitted5)
        try await gate.record(appID: "a", store: queue, now: now)
        let logged = queue.capSends(appID: "a", category: "marketing", subjects: ["u:ana"], since: now)
        #expect(logged == ["u:ana": ["n4"]])
    }

    @Test("a time-sensitive alert is never capped, and is counted; a device without a user counts as itself")
    func exempt() async throws {
        sent(["n1", "n2"], ago: 60)
        var gate = gate(limit: 1, enforced: false)
        try await gate.load([delivery("n3", "t1")], settings: [:], appID: "a", store: queue, now: now)
        let admitted6 = gate.admits("n3", token: "t1", userID: "ana")
        #expect(admitted6)
        let admitted7 = gate.admits("n3", token: "t9", userID: nil)
        #expect(admitted7)
        try await gate.record(appID: "a", store: queue, now: now)
        let logged = queue.capSends(appID: "a", category: "marketing", subjects: ["u:ana", "t9"], since: now)
        #expect(logged == ["u:ana": ["n3"], "t9": ["n3"]])
    }
}
