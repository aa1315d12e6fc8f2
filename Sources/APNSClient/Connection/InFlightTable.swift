import NIOHTTP2

/// The notifications in flight on one connection, by stream ID, without hashing: client stream IDs are odd and
/// increase by two, so stream `id` lives in slot `(id / 2) mod size`. When a new stream's slot is still held by an old
/// one (a slow answer while many faster ones went by), the table doubles.
struct InFlightTable {
    private var slots: [(streamID: HTTP2StreamID, pending: PendingNotification)?]
    /// How many notifications are in flight.
    private(set) var count = 0

    init(capacity: Int = 256) {
        var size = 1
        while size < capacity { size <<= 1 }
        slots = Array(repeating: nil, count: size)
    }

    var isEmpty: Bool { count == 0 }

    private func slot(_ streamID: HTTP2StreamID) -> Int {
        Int(Int32(streamID) >> 1) & (slots.count - 1)
    }

    /// The notification on `streamID`, if it is in flight.
    subscript(streamID: HTTP2StreamID) -> PendingNotification? {
        guard let entry = slots[slot(streamID)], entry.streamID == streamID else { return nil }
        return entry.pending
    }

    /// Records `pending` as in flight on the new stream `streamID`.
    mutating func insert(_ pending: PendingNotification, for streamID: HTTP2StreamID) {
        while slots[slot(streamID)] != nil { grow() }
        slots[slot(streamID)] = (streamID, pending)
        count += 1
    }

    /// Takes the notification on `streamID` out of the table.
    @discardableResult
    mutating func remove(_ streamID: HTTP2StreamID) -> PendingNotification? {
        let index = slot(streamID)
        guard let entry = slots[index], entry.streamID == streamID else { return nil }
        slots[index] = nil
        count -= 1
        return entry.pending
    }

    /// Every entry, in no particular order.
    var entries: [(streamID: HTTP2StreamID, pending: PendingNotification)] {
        slots.compactMap { $0 }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: old.count * 2)
        for case let entry? in old { slots[slot(entry.streamID)] = entry }
    }
}
