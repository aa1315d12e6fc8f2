package import APNSCore
import Foundation

/// The registry's devices, kept compact for tables of ten million. A device whose token has up to 32 bytes (every
/// token iOS gives) is one 72-byte record in an array: the token and the secret's digest inline, its app as a number
/// into a table of the apps (a bundle ID and environment kept once, not once per device). An index of 4-byte slots
/// (open addressing, at most 70 % full) finds a record by its token. About 80 to 90 bytes a device in all, whatever
/// the count (`Benchmarks/gateway-devices.py`); a Swift dictionary of the same devices took 165 at 10,000,000, its
/// spare room included. Why and since when a token is invalid, and longer tokens, are rare and kept in dictionaries
/// of their own.
///
/// A value: a copy (the registry's snapshot for a journal compaction) shares the storage until one of them changes.
package struct DeviceTable: Sequence, Sendable {
    private typealias Words = (UInt64, UInt64, UInt64, UInt64)

    private struct Record {
        var token: Words
        var digest: Words
        var app: UInt32
        var count: UInt8
        /// ``hasDigest`` and ``isInvalid``.
        var flags: UInt8

        static let hasDigest: UInt8 = 1
        static let isInvalid: UInt8 = 2
    }

    private struct App: Hashable {
        let bundleID: String
        let environment: APNSEnvironment
    }

    private var records: [Record] = []
    /// Open addressing with linear probing: 0 is an empty slot, else a record's position plus one. Its count is a
    /// power of two, at least 16.
    private var slots: [UInt32] = Array(repeating: 0, count: 16)
    /// Tokens of more than 32 bytes (the legacy protocol allowed up to 100).
    private var long: [APNSDeviceToken: DeviceRegistry.Device] = [:]
    /// Why and since when a token with a record is invalid.
    private var invalidations: [APNSDeviceToken: DeviceRegistry.Invalidation] = [:]
    private var apps: [App] = []
    private var appNumbers: [App: UInt32] = [:]

    /// The most slots used, as a share of the slots, before the index doubles.
    private static let maximumLoad = 0.7

    /// An empty table.
    package init() {}

    /// How many devices the table holds.
    package var count: Int { records.count + long.count }

    /// Every device, in no particular order, made as it is read.
    package struct Iterator: IteratorProtocol {
        private let table: DeviceTable
        private var position = 0
        private var long: [APNSDeviceToken: DeviceRegistry.Device].Values.Iterator

        fileprivate init(_ table: DeviceTable) {
            self.table = table
            self.long = table.long.values.makeIterator()
        }

        package mutating func next() -> DeviceRegistry.Device? {
            guard position < table.records.count else { return long.next() }
            defer { position += 1 }
            return table.device(table.records[position])
        }
    }

    package func makeIterator() -> Iterator { Iterator(self) }

    package var underestimatedCount: Int { count }

    /// The device a token belongs to; setting `nil` forgets the token.
    package subscript(token: APNSDeviceToken) -> DeviceRegistry.Device? {
        get {
            guard let (words, count) = token.packed else { return long[token] }
            return find(words, count).map { device(records[$0.record]) }
        }
        set {
            guard let (words, count) = token.packed else {
                long[token] = newValue
                return
            }
            guard let device = newValue else {
                if let found = find(words, count) { remove(found) }
                return
            }
            let found = find(words, count)
            if device.invalidation != nil || found.map({ records[$0.record].flags & Record.isInvalid != 0 }) == true {
                invalidations[token] = device.invalidation
            }
            let record = Record(
                token: words, digest: device.secretDigest?.words ?? (0, 0, 0, 0),
                app: number(of: App(bundleID: device.bundleID, environment: device.environment)), count: count,
                flags: (device.secretDigest == nil ? 0 : Record.hasDigest)
                    | (device.invalidation == nil ? 0 : Record.isInvalid))
            if let found {
                records[found.record] = record
            } else {
                insert(record)
            }
        }
    }

    private func device(_ record: Record) -> DeviceRegistry.Device {
        let app = apps[Int(record.app)]
        let token = APNSDeviceToken(packed: record.token, count: record.count)
        return DeviceRegistry.Device(
            token: token, bundleID: app.bundleID, environment: app.environment,
            invalidation: record.flags & Record.isInvalid == 0 ? nil : invalidations[token],
            secretDigest: record.flags & Record.hasDigest == 0 ? nil : DeviceSecretDigest(words: record.digest))
    }

    /// The slot and the record of a token, if the table has it.
    private func find(_ words: Words, _ count: UInt8) -> (slot: Int, record: Int)? {
        let mask = slots.count - 1
        var slot = Self.home(words, count, mask: mask)
        while slots[slot] != 0 {
            let position = Int(slots[slot]) - 1
            if Self.same(records[position], words, count) { return (slot, position) }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func insert(_ record: Record) {
        if Double(records.count + 1) > Double(slots.count) * Self.maximumLoad { grow() }
        records.append(record)
        place(records.count - 1)
    }

    /// Puts a record's position in the first empty slot from its home.
    private mutating func place(_ position: Int) {
        let mask = slots.count - 1
        var slot = Self.home(records[position].token, records[position].count, mask: mask)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt32(position + 1)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        for position in records.indices { place(position) }
    }

    /// Empties a record's slot (moving back the slots after it that linear probing put past it, so that no search
    /// stops early), then fills its place in the array with the last record.
    private mutating func remove(_ found: (slot: Int, record: Int)) {
        let removed = records[found.record]
        let mask = slots.count - 1
        var hole = found.slot
        slots[hole] = 0
        var slot = (hole + 1) & mask
        while slots[slot] != 0 {
            let moved = records[Int(slots[slot]) - 1]
            let home = Self.home(moved.token, moved.count, mask: mask)
            // The entry may move back to the hole unless its home lies after the hole, up to and including it.
            let homeAfterHole = hole <= slot ? (home > hole && home <= slot) : (home > hole || home <= slot)
            if !homeAfterHole {
                slots[hole] = slots[slot]
                slots[slot] = 0
                hole = slot
            }
            slot = (slot + 1) & mask
        }
        if removed.flags & Record.isInvalid != 0 {
            invalidations[APNSDeviceToken(packed: removed.token, count: removed.count)] = nil
        }
        let last = records.count - 1
        if found.record != last {
            let moved = records[last]
            // Safety: the last record is in the table, so it has a slot.
            let movedSlot = find(moved.token, moved.count)!.slot
            records[found.record] = moved
            slots[movedSlot] = UInt32(found.record + 1)
        }
        records.removeLast()
    }

    private static func home(_ words: Words, _ count: UInt8, mask: Int) -> Int {
        // Hasher is seeded per process: tokens chosen to collide cannot be made in advance.
        var hasher = Hasher()
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
        hasher.combine(count)
        return hasher.finalize() & mask
    }

    private static func same(_ record: Record, _ words: Words, _ count: UInt8) -> Bool {
        record.token.0 == words.0 && record.token.1 == words.1 && record.token.2 == words.2
            && record.token.3 == words.3 && record.count == count
    }

    private mutating func number(of app: App) -> UInt32 {
        if let number = appNumbers[app] { return number }
        let number = UInt32(apps.count)
        apps.append(app)
        appNumbers[app] = number
        return number
    }
}
