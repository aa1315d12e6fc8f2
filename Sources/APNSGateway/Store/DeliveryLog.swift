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
        public var token: String?
        public var events: [Event]
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        var byUniqueID: [UUID: UUID] = [:]
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
    public func record(_ apnsID: UUID, uniqueID: UUID? = nil, token: String? = nil, _ events: Event...) {
        state.withLock { state in
            if state.entries[apnsID] == nil {
                if state.order.count < capacity {
                    state.order.append(apnsID)
                } else {
                    let evicted = state.order[state.next]
                    if let old = state.entries.removeValue(forKey: evicted), let unique = old.uniqueID {
                        state.byUniqueID[unique] = nil
                    }
                    state.order[state.next] = apnsID
                    state.next = (state.next + 1) % capacity
                }
                state.entries[apnsID] = Entry(apnsID: apnsID, uniqueID: uniqueID, token: token, events: [])
            }
            if let uniqueID {
                state.entries[apnsID]?.uniqueID = uniqueID
                state.byUniqueID[uniqueID] = apnsID
            }
            if let token { state.entries[apnsID]?.token = token }
            state.entries[apnsID]?.events += events
        }
    }

    /// The entry for an `apns-id`.
    public func entry(apnsID: UUID) -> Entry? {
        state.withLock { $0.entries[apnsID] }
    }

    /// The entry for an `apns-unique-id`.
    public func entry(uniqueID: UUID) -> Entry? {
        state.withLock { state in state.byUniqueID[uniqueID].flatMap { state.entries[$0] } }
    }
}
