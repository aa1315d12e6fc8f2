public import APNSCore
public import Foundation
import Synchronization

/// What happened to each notification, like Apple's Push Notifications Console delivery log: received, rejected
/// (with the reason), stored, forwarded, delivered, replaced, expired, discarded, with times.
///
/// It remembers the most recent ``capacity`` notifications (by `apns-id`); older ones are forgotten first.
public final class DeliveryLog: Sendable {
    /// One thing that happened to a notification.
    public struct Event: Sendable, Hashable {
        /// What happened.
        public enum Kind: String, Sendable {
            case received, rejected, stored, forwarded, delivered, replaced, expired, discarded
        }

        public let kind: Kind
        public let time: Date
        /// The reason of a rejection, or why it was replaced, discarded or expired.
        public let detail: String?
        /// For ``Kind/replaced``: the notification that replaced it.
        public let replacedBy: UUID?

        public init(_ kind: Kind, at time: Date, _ detail: String? = nil, replacedBy: UUID? = nil) {
            self.kind = kind
            self.time = time
            self.detail = detail
            self.replacedBy = replacedBy
        }
    }

    /// Everything known of one notification.
    public struct Entry: Sendable, Hashable {
        public let apnsID: UUID
        public var uniqueID: UUID?
        public var token: APNSDeviceToken?
        public var events: [Event]
    }

    /// An entry as kept: without its key, to keep the log small (it is part of every stored notification's cost).
    private struct Record {
        var uniqueID: UUID?
        var token: APNSDeviceToken?
        var events: [Event]
    }

    private struct State {
        var records: [UUID: Record] = [:]
        var order: [UUID] = []
        var next = 0
    }

    /// How many notifications it remembers.
    public let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int = 100_000) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Adds events to a notification's entry, making the entry when it is new.
    public func record(_ apnsID: UUID, uniqueID: UUID? = nil, token: APNSDeviceToken? = nil, _ events: Event...) {
        state.withLock { state in
            if state.records[apnsID] == nil {
                if state.order.count < capacity {
                    state.order.append(apnsID)
                } else {
                    state.records[state.order[state.next]] = nil
                    state.order[state.next] = apnsID
                    state.next = (state.next + 1) % capacity
                }
                state.records[apnsID] = Record(uniqueID: uniqueID, token: token, events: events)
                return
            }
            if let uniqueID { state.records[apnsID]?.uniqueID = uniqueID }
            if let token { state.records[apnsID]?.token = token }
            state.records[apnsID]?.events += events
        }
    }

    /// The entry for an `apns-id`.
    public func entry(apnsID: UUID) -> Entry? {
        state.withLock { state in
            state.records[apnsID].map {
                Entry(apnsID: apnsID, uniqueID: $0.uniqueID, token: $0.token, events: $0.events)
            }
        }
    }

    /// The entry for an `apns-unique-id` (a scan: the log keeps no second index, to stay small).
    public func entry(uniqueID: UUID) -> Entry? {
        state.withLock { state in
            state.records.first { $0.value.uniqueID == uniqueID }.map {
                Entry(apnsID: $0.key, uniqueID: $0.value.uniqueID, token: $0.value.token, events: $0.value.events)
            }
        }
    }
}
