package import APNSCore
package import Foundation
import Synchronization

/// What happened to each notification, like Apple's Push Notifications Console delivery log: received, rejected
/// (with the reason), stored, forwarded, delivered, replaced, expired, discarded, with times.
///
/// It remembers the most recent ``capacity`` notifications (by `apns-id`); older ones are forgotten first.
package final class DeliveryLog: Sendable {
    /// One thing that happened to a notification.
    package struct Event: Sendable, Hashable {
        /// What happened.
        package enum Kind: String, Sendable {
            case received, rejected, stored, forwarded, delivered, replaced, expired, discarded
        }

        package let kind: Kind
        package let time: Date
        /// The reason of a rejection, or why it was replaced, discarded or expired.
        package let detail: String?
        /// For ``Kind/replaced``: the notification that replaced it.
        package let replacedBy: UUID?

        package init(_ kind: Kind, at time: Date, _ detail: String? = nil, replacedBy: UUID? = nil) {
            self.kind = kind
            self.time = time
            self.detail = detail
            self.replacedBy = replacedBy
        }
    }

    /// Everything known of one notification.
    package struct Entry: Sendable, Hashable {
        package let apnsID: UUID
        package var uniqueID: UUID?
        package var token: APNSDeviceToken?
        package var events: [Event]
    }

    private struct State {
        /// Where each notification's record is.
        var index: [UUID: Int32] = [:]
        /// The records in chunks of ``chunkSize`` (growing a chunk at a time, never copying the log whole); once
        /// ``capacity`` are kept, a new record takes the place of the oldest.
        var chunks: [[DeliveryLogRecord]] = []
        var count = 0
        var oldest = 0
        /// How many notifications were ever recorded: the next one's sequence number. Sequence `n` is in slot
        /// `n % capacity` while it is kept.
        var total = 0

        subscript(slot: Int) -> DeliveryLogRecord {
            chunks[slot / DeliveryLog.chunkSize][slot % DeliveryLog.chunkSize]
        }

        /// Changes the record in `slot` in place.
        mutating func update(_ slot: Int, _ change: (inout DeliveryLogRecord) -> Void) {
            change(&chunks[slot / DeliveryLog.chunkSize][slot % DeliveryLog.chunkSize])
        }
    }

    private static let chunkSize = 4096

    /// How many notifications it remembers.
    package let capacity: Int
    private let state = Mutex(State())

    package init(capacity: Int = 100_000) {
        precondition(capacity > 0 && capacity <= Int(Int32.max))
        self.capacity = capacity
    }

    /// Adds events to a notification's entry, making the entry when it is new.
    package func record(_ apnsID: UUID, uniqueID: UUID? = nil, token: APNSDeviceToken? = nil, _ events: Event...) {
        record(apnsID, uniqueID: uniqueID, token: token, events: events)
    }

    /// Adds events to a notification's entry, making the entry when it is new.
    package func record(_ apnsID: UUID, uniqueID: UUID? = nil, token: APNSDeviceToken? = nil, events: [Event]) {
        state.withLock { state in
            // One lookup finds the notification's slot, or enters the slot a new record takes (the next free one, or
            // the oldest's once the log is full).
            let free = Int32(state.count < capacity ? state.count : state.oldest)
            var isNew = false
            let slot = Int(Self.slot(&state.index[apnsID, default: -1], orNew: free, isNew: &isNew))
            guard isNew else {
                state.update(slot) { record in
                    if let uniqueID { record.uniqueID = uniqueID }
                    if let token { record.token = token }
                    record.append(events)
                }
                return
            }
            let record = DeliveryLogRecord(apnsID: apnsID, uniqueID: uniqueID, token: token, events: events)
            if state.count < capacity {
                if slot % Self.chunkSize == 0 {
                    state.chunks.append([])
                    state.chunks[state.chunks.count - 1].reserveCapacity(min(Self.chunkSize, capacity - slot))
                }
                state.chunks[state.chunks.count - 1].append(record)
                state.count += 1
            } else {
                state.index[state[slot].apnsID] = nil
                state.update(slot) { $0 = record }
                state.oldest = (slot + 1) % capacity
            }
            state.total += 1
        }
    }

    /// The slot in an index entry, or `free` written into a new one (`-1`).
    private static func slot(_ entry: inout Int32, orNew free: Int32, isNew: inout Bool) -> Int32 {
        if entry < 0 {
            entry = free
            isNew = true
        }
        return entry
    }

    /// The sequence number of the latest notification recorded (`-1` before the first).
    package var lastSequence: Int { state.withLock { $0.total - 1 } }

    /// The notifications recorded after sequence number `after` (the oldest still kept when `after` is older), in
    /// the order they arrived, each with its sequence number; and the sequence number to ask after next time.
    ///
    /// - Parameters:
    ///   - after: the last sequence number already seen; `-1` (or less) for the oldest kept.
    ///   - limit: the most entries answered.
    /// - Returns: the entries with their sequence numbers, and the last sequence number answered (or known).
    package func entries(after: Int, limit: Int) -> (entries: [(sequence: Int, entry: Entry)], last: Int) {
        state.withLock { state in
            // `after` is a client's number: Int.max must not overflow.
            let first = max(after.saturatingSuccessor, state.total - state.count)
            let end = first >= state.total ? first : min(state.total, first + max(0, limit))
            guard first < end else { return ([], max(after, state.total - 1)) }
            let entries = (first..<end).map { ($0, state[$0 % capacity].entry) }
            return (entries, end - 1)
        }
    }

    /// The entry for an `apns-id`.
    package func entry(apnsID: UUID) -> Entry? {
        state.withLock { state in state.index[apnsID].map { state[Int($0)].entry } }
    }

    /// The entry for an `apns-unique-id` (a scan: the log keeps no second index, to stay small).
    package func entry(uniqueID: UUID) -> Entry? {
        state.withLock { state in
            for chunk in state.chunks {
                if let record = chunk.first(where: { $0.uniqueID == uniqueID }) { return record.entry }
            }
            return nil
        }
    }
}
