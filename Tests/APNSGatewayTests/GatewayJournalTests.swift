import APNSCore
import APNSGateway
import Courier
import Foundation
import Logging
import Testing

@Suite("The gateway's journal")
struct GatewayJournalTests {
    @Test("a journal compacted while running keeps every device and only the newest stored push")
    func compactionWhileRunning() throws {
        let (directory, journal, registry, store, devices) = try JournalFixture.make(threshold: 4096, devices: 20)
        var newest: [APNSDeviceToken: UUID] = [:]
        for round in 0..<10 {
            for device in devices {
                let notification = JournalFixture.push(to: device, alert: "round \(round)")
                store.accept(notification)
                newest[device.token] = notification.apnsID
            }
            journal.flush(from: store, registry: registry)
        }
        let size = try FileManager.default.attributesOfItem(atPath: journal.url.path)[.size] as? Int ?? 0
        #expect(size < 2 * (4096 + 20 * 400), "the journal was never compacted: \(size) bytes")
        journal.close()

        let reopened = try GatewayJournal(directory: directory)
        #expect(Set(reopened.recovered.devices.map(\.token)) == Set(devices.map(\.token)))
        #expect(Dictionary(uniqueKeysWithValues: reopened.recovered.stored.map { ($0.token, $0.apnsID) }) == newest)
        reopened.close()
    }

    @Test("a write that fails is counted and logged, not printed and dropped")
    func failedWrite() throws {
        let (_, journal, registry, _, _) = try JournalFixture.make(threshold: 1 << 20, devices: 1)
        #expect(journal.writeFailures == 0)
        journal.close()
        // Registering a device writes its record at once, to a file that is closed now.
        _ = try registry.register(bundleID: "com.example.app", environment: .development)
        #expect(journal.writeFailures == 1)
    }

    @Test("a journal whose live content is past the threshold is not rewritten at every flush")
    func largeStoreIsNotRewrittenEachFlush() throws {
        let (_, journal, registry, store, devices) = try JournalFixture.make(threshold: 1024, devices: 50)
        func push(to device: DeviceRegistry.Device) { store.accept(JournalFixture.push(to: device, alert: "hello")) }
        for device in devices { push(to: device) }
        journal.flush(from: store, registry: registry)
        func size() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: journal.url.path)[.size] as? Int ?? 0
        }
        let compacted = try size()
        #expect(compacted > 1024)
        push(to: devices[0])
        journal.flush(from: store, registry: registry)
        #expect(try size() > compacted, "one more push rewrote the whole journal instead of appending")
        journal.close()
    }

    @Test("a journal larger than one write is rewritten whole: every device and stored push survives a reopen")
    func largeRewriteKeepsEverything() throws {
        let (directory, journal, registry, store, devices) = try JournalFixture.make(threshold: 1024, devices: 400)
        let body = String(repeating: "x", count: 1000)
        for device in devices { store.accept(JournalFixture.push(to: device, alert: body)) }
        journal.flush(from: store, registry: registry)
        journal.close()
        let reopened = try GatewayJournal(directory: directory)
        let size = try FileManager.default.attributesOfItem(atPath: reopened.url.path)[.size] as? Int ?? 0
        #expect(size > 400 * 1000, "the journal holds every payload: \(size) bytes")
        #expect(Set(reopened.recovered.devices.map(\.token)) == Set(devices.map(\.token)))
        #expect(Set(reopened.recovered.stored.map(\.apnsID)) == Set(store.allStored().map(\.apnsID)))
        #expect(reopened.recovered.stored.count == 400)
        reopened.close()
    }
}

/// A journal in a fresh directory with a registry and a store writing to it, and registered devices.
private enum JournalFixture {
    static func make(
        threshold: Int, devices count: Int
    ) throws -> (URL, GatewayJournal, DeviceRegistry, NotificationStore, [DeviceRegistry.Device]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        let journal = try GatewayJournal(
            directory: directory, compactionThreshold: threshold,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let registry = DeviceRegistry(changed: { device throws(GatewayDataError) in try journal.record(device) })
        let store = NotificationStore(changed: { journal.markChanged($0) })
        let devices = try (0..<count).map { _ in
            try registry.register(bundleID: "com.example.app", environment: .development).device
        }
        return (directory, journal, registry, store, devices)
    }

    /// An accepted alert push to `device`.
    static func push(to device: DeviceRegistry.Device, alert: String) -> AcceptedNotification {
        AcceptedNotification(
            apnsID: UUID(), uniqueID: nil, token: device.token, topic: "com.example.app", pushType: .alert,
            priority: .immediate, expiration: .storagePolicy, collapseID: nil,
            payload: Array(#"{"aps":{"alert":"\#(alert)"}}"#.utf8), receivedAt: Date())
    }
}
