package import APNSCore
import Foundation

/// The registry's devices, kept compact for tables of ten million: the token is the key (32 bytes inline); each entry
/// holds its app as a number into a table of the apps (a bundle ID and environment kept once, not once per device),
/// why and since when the token is invalid as a number and a time, and the secret's digest inline. An entry is about
/// 100 bytes; measured with the dictionary's spare room, 165 bytes a device at 10,000,000 (`Benchmarks/gateway-devices.py`).
///
/// A value: a copy (the registry's snapshot for a journal compaction) shares the storage until one of them changes.
package struct DeviceTable: Sequence {
    private struct Entry {
        var secretDigest: DeviceSecretDigest?
        /// When the token became invalid (seconds since 1970); meaningful when ``reason`` is not 0.
        var invalidSince: Double
        var app: UInt32
        /// 0 for a valid token, else the invalidation reason's number in ``reasons`` plus one.
        var reason: UInt16
    }

    private struct App: Hashable {
        let bundleID: String
        let environment: APNSEnvironment
    }

    private var entries: [APNSDeviceToken: Entry] = [:]
    private var apps: [App] = []
    private var appNumbers: [App: UInt32] = [:]
    private var reasons: [APNSReason] = []

    /// An empty table.
    package init() {}

    /// How many devices the table holds.
    package var count: Int { entries.count }

    /// Every device, in no particular order, made as it is read.
    package struct Iterator: IteratorProtocol {
        private var entries: [APNSDeviceToken: Entry].Iterator
        private let table: DeviceTable

        fileprivate init(_ table: DeviceTable) {
            self.table = table
            self.entries = table.entries.makeIterator()
        }

        package mutating func next() -> DeviceRegistry.Device? {
            entries.next().map { table.device($0.key, $0.value) }
        }
    }

    package func makeIterator() -> Iterator { Iterator(self) }

    package var underestimatedCount: Int { entries.count }

    /// The device a token belongs to; setting `nil` forgets the token.
    package subscript(token: APNSDeviceToken) -> DeviceRegistry.Device? {
        get { entries[token].map { device(token, $0) } }
        set {
            guard let device = newValue else {
                entries[token] = nil
                return
            }
            entries[token] = Entry(
                secretDigest: device.secretDigest,
                invalidSince: device.invalidation?.since.timeIntervalSince1970 ?? 0,
                app: number(of: App(bundleID: device.bundleID, environment: device.environment)),
                reason: device.invalidation.map { number(of: $0.reason) } ?? 0)
        }
    }

    private func device(_ token: APNSDeviceToken, _ entry: Entry) -> DeviceRegistry.Device {
        let app = apps[Int(entry.app)]
        let invalidation =
            entry.reason == 0
            ? nil
            : DeviceRegistry.Invalidation(
                reason: reasons[Int(entry.reason) - 1], since: Date(timeIntervalSince1970: entry.invalidSince))
        return DeviceRegistry.Device(
            token: token, bundleID: app.bundleID, environment: app.environment, invalidation: invalidation,
            secretDigest: entry.secretDigest)
    }

    private mutating func number(of app: App) -> UInt32 {
        if let number = appNumbers[app] { return number }
        let number = UInt32(apps.count)
        apps.append(app)
        appNumbers[app] = number
        return number
    }

    private mutating func number(of reason: APNSReason) -> UInt16 {
        if let index = reasons.firstIndex(of: reason) { return UInt16(index + 1) }
        reasons.append(reason)
        return UInt16(reasons.count)
    }
}
