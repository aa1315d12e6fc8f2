import APNSCore
import Foundation

/// One notification's entry as the delivery log keeps it: its IDs, its token, and its events with the first three
/// plain ones (a kind and a time, no detail) inline, so most entries need no allocation of their own.
struct DeliveryLogRecord {
    var apnsID: UUID
    var uniqueID: UUID?
    var token: APNSDeviceToken?
    private var inlineCount: UInt8 = 0
    private var kinds: (UInt8, UInt8, UInt8) = (0, 0, 0)
    private var times: (Double, Double, Double) = (0, 0, 0)
    /// The events after the inline ones, and every event from the first one with a detail on.
    private var more: [DeliveryLog.Event]?

    init(apnsID: UUID, uniqueID: UUID?, token: APNSDeviceToken?, events: [DeliveryLog.Event]) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.token = token
        append(events)
    }

    /// Adds events after those already recorded.
    mutating func append(_ events: [DeliveryLog.Event]) {
        for event in events {
            guard more == nil, inlineCount < 3, event.detail == nil, event.replacedBy == nil else {
                if more == nil { more = [event] } else { more?.append(event) }
                continue
            }
            let kind = Self.code(event.kind)
            let time = event.time.timeIntervalSinceReferenceDate
            switch inlineCount {
            case 0: (kinds.0, times.0) = (kind, time)
            case 1: (kinds.1, times.1) = (kind, time)
            default: (kinds.2, times.2) = (kind, time)
            }
            inlineCount += 1
        }
    }

    /// The events in the order they were recorded.
    var events: [DeliveryLog.Event] {
        let inline = [(kinds.0, times.0), (kinds.1, times.1), (kinds.2, times.2)].prefix(Int(inlineCount))
        return inline.map { kind, time in
            DeliveryLog.Event(Self.kinds[Int(kind)], at: Date(timeIntervalSinceReferenceDate: time))
        } + (more ?? [])
    }

    var entry: DeliveryLog.Entry {
        DeliveryLog.Entry(apnsID: apnsID, uniqueID: uniqueID, token: token, events: events)
    }

    private static let kinds: [DeliveryLog.Event.Kind] = [
        .received, .rejected, .stored, .forwarded, .delivered, .replaced, .expired, .discarded,
    ]
    /// A kind's place in ``kinds``.
    private static func code(_ kind: DeliveryLog.Event.Kind) -> UInt8 {
        switch kind {
        case .received: 0
        case .rejected: 1
        case .stored: 2
        case .forwarded: 3
        case .delivered: 4
        case .replaced: 5
        case .expired: 6
        case .discarded: 7
        }
    }
}
