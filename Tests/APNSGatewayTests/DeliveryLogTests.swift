import APNSCore
import APNSGateway
import Foundation
import Testing

@Suite("The gateway's delivery log")
struct DeliveryLogTests {
    @Test("once full, each new notification takes the place of the oldest; the others stay")
    func oldestForgottenFirst() {
        let log = DeliveryLog(capacity: 3)
        let ids = (0..<5).map { _ in UUID() }
        for id in ids { log.record(id, .init(.received, at: Date())) }
        #expect(log.entry(apnsID: ids[0]) == nil)
        #expect(log.entry(apnsID: ids[1]) == nil)
        for id in ids[2...] { #expect(log.entry(apnsID: id)?.events.map(\.kind) == [.received]) }
        log.record(ids[2], .init(.stored, at: Date()))
        #expect(log.entry(apnsID: ids[2])?.events.map(\.kind) == [.received, .stored], "an entry kept grows in place")
        let later = UUID()
        log.record(later, .init(.received, at: Date()))
        #expect(log.entry(apnsID: ids[2]) == nil, "the third is now the oldest")
        #expect(log.entry(apnsID: later) != nil && log.entry(apnsID: ids[4]) != nil)
    }

    @Test("events come back in the order recorded, with their times, details and replacements")
    func eventsKeepOrderAndDetail() throws {
        let log = DeliveryLog()
        let id = UUID()
        let newer = UUID()
        let token = try APNSDeviceToken(hex: String(repeating: "ab", count: 32))
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000.123)
        let events: [DeliveryLog.Event] = [
            .init(.received, at: start),
            .init(.stored, at: start + 0.001),
            .init(.replaced, at: start + 1, "a newer notification replaced it", replacedBy: newer),
            .init(.forwarded, at: start + 2),
            .init(.delivered, at: start + 3),
        ]
        log.record(id, token: token, events[0], events[1])
        log.record(id, events[2])
        log.record(id, events[3])
        log.record(id, events[4])
        let entry = try #require(log.entry(apnsID: id))
        #expect(entry.events == events)
        #expect(entry.token == token)
        #expect(entry.uniqueID == nil)
    }

    @Test("four plain events, then one with a detail: all five in order")
    func manyPlainEvents() throws {
        let log = DeliveryLog()
        let id = UUID()
        let start = Date()
        let kinds: [DeliveryLog.Event.Kind] = [.received, .forwarded, .delivered, .forwarded, .expired]
        let events = kinds.enumerated().map { index, kind in
            DeliveryLog.Event(kind, at: start + Double(index), kind == .expired ? "its deadline passed" : nil)
        }
        for event in events { log.record(id, event) }
        #expect(try #require(log.entry(apnsID: id)).events == events)
    }

    @Test("an entry is found by its apns-unique-id, however far into the log it is")
    func findByUniqueID() {
        let log = DeliveryLog(capacity: 10_000)
        let pairs = (0..<9_000).map { _ in (UUID(), UUID()) }
        for (apnsID, uniqueID) in pairs { log.record(apnsID, uniqueID: uniqueID, .init(.received, at: Date())) }
        for index in [0, 4_095, 4_096, 8_999] {
            #expect(log.entry(uniqueID: pairs[index].1)?.apnsID == pairs[index].0)
        }
        #expect(log.entry(uniqueID: UUID()) == nil)
        let lateUnique = UUID()
        log.record(pairs[1].0, uniqueID: lateUnique)
        #expect(log.entry(uniqueID: lateUnique)?.apnsID == pairs[1].0, "a unique ID added later is found too")
    }
}
