import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import Logging
import TestPacing
import Testing

@Suite("The gateway's journal", .startsServers)
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
        // A compaction running when the last rounds were written leaves their dead records to the next flush's.
        journal.waitForCompaction()
        journal.flush(from: store, registry: registry)
        journal.waitForCompaction()
        let size = try FileManager.default.attributesOfItem(atPath: journal.url.path)[.size] as? Int ?? 0
        #expect(size < 2 * (4096 + 20 * 400), "the journal was never compacted: \(size) bytes")
        journal.close()

        let reopened = try GatewayJournal(directory: directory)
        #expect(Set(reopened.recovered.devices.map(\.token)) == Set(devices.map(\.token)))
        #expect(Dictionary(uniqueKeysWithValues: reopened.recovered.stored.map { ($0.token, $0.apnsID) }) == newest)
        reopened.close()
    }

    @Test("devices of several apps, invalid and valid, with and without a secret, read back whole after a restart")
    func devicesReadBack() throws {
        let (directory, journal, registry, _, _) = try JournalFixture.make(threshold: 1 << 20, devices: 0)
        let long = try APNSDeviceToken(hex: String(repeating: "5a", count: 40))
        var made: [DeviceRegistry.Device] = []
        for (index, bundleID) in ["com.example.app", "com.example.a-much-longer-bundle-identifier"].enumerated() {
            for environment in [APNSEnvironment.development, .production] {
                made.append(try registry.register(bundleID: bundleID, environment: environment).device)
            }
            made.append(
                try registry.register(bundleID: bundleID, environment: .development, token: index == 0 ? long : nil)
                    .device)
        }
        let since = Date(timeIntervalSince1970: 1_700_000_000.123)
        try registry.invalidate(made[0].token, reason: .unregistered, at: since)
        try registry.invalidate(made[4].token, reason: .expiredToken, at: since)
        let expected = Set(made.map(\.token).compactMap(registry.device(for:)))
        #expect(expected.count == 6)
        #expect(registry.device(for: made[0].token)?.invalidation == .init(reason: .unregistered, since: since))
        #expect(registry.device(for: long)?.bundleID == "com.example.app")
        journal.close()

        let reopened = try GatewayJournal(directory: directory)
        let restored = DeviceRegistry(devices: reopened.recovered.devices)
        #expect(Set(restored.all) == expected, "every field of every device, the secret's digest included")
        #expect(restored.count == 6)
        reopened.close()
    }

    @Test("a device record with a digest that is not 32 bytes, or a reason a token is never given, is refused at start")
    func badDeviceRecords() throws {
        let token = String(repeating: "ab", count: 32)
        for (record, problem) in [
            (
                #"{"device":{"token":"\#(token)","bundle-id":"a.b","environment":"development","secret-sha256":"AAAA"}}"#,
                "secret-sha256 is not 32 bytes"
            ),
            (
                #"{"device":{"token":"\#(token)","bundle-id":"a.b","environment":"development","invalid-reason":"BadTopic","invalid-since":0}}"#,
                "invalid-reason BadTopic is not Unregistered or ExpiredToken"
            ),
        ] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let framed = "\(record.utf8.count)\n\(record)\n\(record.utf8.count)\n\(record)\n"
            try Data(framed.utf8).write(to: directory.appendingPathComponent("journal"))
            #expect {
                try GatewayJournal(directory: directory)
            } throws: { ($0 as? GatewayDataError)?.message.contains(problem) == true }
        }
    }

    @Test("a journal larger than one read is streamed: records across the reads' edges are whole, the torn tail is cut")
    func streamedAtStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var text = ""
        let count = 30_000
        for index in 0..<count {
            let token = String(format: "%064x", index)
            let record =
                #"{"device":{"token":"\#(token)","bundle-id":"com.example.app","environment":"development"}}"#
            text += "\(record.utf8.count)\n\(record)\n"
        }
        let torn = #"{"device":{"token":"ab","bun"#
        text += "\(torn.utf8.count + 40)\n\(torn)"
        #expect(text.utf8.count > 1 + (4 << 20), "more than one read of the journal")
        try Data(text.utf8).write(to: directory.appendingPathComponent("journal"))

        let journal = try GatewayJournal(directory: directory)
        #expect(journal.recovered.devices.count == count)
        #expect(Set(journal.recovered.devices.map(\.token.hex)).contains(String(format: "%064x", count - 1)))
        let kept = try String(contentsOf: directory.appendingPathComponent("journal.torn"), encoding: .utf8)
        #expect(kept.hasSuffix(torn))
        journal.close()
    }

    @Test("a device record that cannot be written fails the registration, which is undone, and is counted")
    func failedWrite() throws {
        let (_, journal, registry, _, _) = try JournalFixture.make(threshold: 1 << 20, devices: 1)
        #expect(journal.writeFailures == 0)
        journal.close()
        // Registering a device writes its record at once, to a file that is closed now.
        let count = registry.all.count
        do {
            _ = try registry.register(bundleID: "com.example.app", environment: .development)
            Issue.record("a registration the journal could not keep succeeded")
        } catch {
            #expect(error.isStorageFailure)
            #expect(error.message.contains("could not write its journal"))
        }
        #expect(registry.all.count == count, "the token that could not be written was handed out anyway")
        #expect(journal.writeFailures == 1)
        // A batch is kept whole or not at all.
        #expect(throws: GatewayDataError.self) {
            try registry.register(count: 1000, bundleID: "com.example.app", environment: .development)
        }
        #expect(registry.count == count, "tokens of a batch that could not be written were handed out anyway")
        #expect(journal.writeFailures == 2)
    }

    @Test("a torn last record is cut off at start, kept aside and reported; every whole record is kept")
    func tornTail() throws {
        let (directory, journal, registry, store, devices) = try JournalFixture.make(threshold: 1 << 20, devices: 5)
        for device in devices { store.accept(JournalFixture.push(to: device, alert: "kept")) }
        #expect(journal.flush(from: store, registry: registry))
        journal.close()
        let whole = try Data(contentsOf: journal.url)
        for torn in ["200\n{\"slot\":\"ab", "12", "5\n{\"de"] {
            try (whole + Data(torn.utf8)).write(to: journal.url)
            let reopened = try GatewayJournal(directory: directory)
            #expect(Set(reopened.recovered.devices.map(\.token)) == Set(devices.map(\.token)))
            #expect(reopened.recovered.stored.count == 5)
            reopened.close()
            let kept = try Data(contentsOf: directory.appendingPathComponent("journal.torn"))
            #expect(String(decoding: kept, as: UTF8.self) == torn)
        }
    }

    @Test("a count in the journal past Int's range is a torn record, not a crash")
    func hugeCount() throws {
        let (directory, journal, _, _, devices) = try JournalFixture.make(threshold: 1 << 20, devices: 2)
        journal.close()
        let whole = try Data(contentsOf: journal.url)
        try (whole + Data("9223372036854775807\n{}\n".utf8)).write(to: journal.url)
        let reopened = try GatewayJournal(directory: directory)
        #expect(reopened.recovered.devices.count == devices.count)
        reopened.close()
    }

    @Test(
        "on a full disk a flush fails and says so, a compaction leaves the journal whole, and nothing is lost once there is room",
        .enabled(if: SmallDisk.isAvailable, "mounts a small tmpfs, which needs root"))
    func fullDisk() async throws {
        try await SmallDisk.with(kilobytes: 512) { disk in try Self.fullDisk(disk) }
    }

    private static func fullDisk(_ disk: SmallDisk) throws {
        let (directory, journal, registry, store, devices) = try JournalFixture.make(
            threshold: 8 << 10, devices: 20, in: disk.url)
        let body = String(repeating: "x", count: 1500)
        try disk.fill(leaving: 12 << 10)
        var failed = 0
        var acknowledged: [APNSDeviceToken: UUID] = [:]
        for round in 0..<20 {
            var pushed: [APNSDeviceToken: UUID] = [:]
            for device in devices {
                let push = JournalFixture.push(to: device, alert: "\(round) \(body)")
                store.accept(push)
                pushed[device.token] = push.apnsID
            }
            if journal.flush(from: store, registry: registry) {
                acknowledged.merge(pushed) { $1 }
            } else {
                failed += 1
            }
        }
        #expect(failed > 0, "the disk never filled")
        #expect(journal.writeFailures >= failed)
        // What a process killed now leaves: every device, and for each the last push a flush acknowledged.
        let killed = try SmallDisk.copy(directory)
        let recovered = try GatewayJournal(directory: killed).recovered
        #expect(Set(recovered.devices.map(\.token)) == Set(devices.map(\.token)))
        let stored = Dictionary(uniqueKeysWithValues: recovered.stored.map { ($0.token, $0.apnsID) })
        #expect(stored == acknowledged)
        // With room again, the changes that failed are written at the next flush.
        try disk.release()
        #expect(journal.flush(from: store, registry: registry))
        journal.close()
        let reopened = try GatewayJournal(directory: directory)
        #expect(Set(reopened.recovered.devices.map(\.token)) == Set(devices.map(\.token)))
        #expect(Set(reopened.recovered.stored.map(\.apnsID)) == Set(store.allStored().map(\.apnsID)))
        reopened.close()
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

    @Test("a journal that grows only with what is live (a push to each of many new devices) is never rewritten")
    func liveGrowthIsNotRewritten() throws {
        let (_, journal, registry, store, devices) = try JournalFixture.make(threshold: 1024, devices: 300)
        for (index, device) in devices.enumerated() {
            store.accept(JournalFixture.push(to: device, alert: String(repeating: "x", count: 200)))
            if index % 25 == 0 { journal.flush(from: store, registry: registry) }
        }
        journal.flush(from: store, registry: registry)
        journal.waitForCompaction()
        #expect(journal.compactions == 0, "the journal was rewritten though nothing in it was dead")
        journal.close()
    }

    @Test("after a restart, pushes that replace the stored ones count the old records as dead and compact the journal")
    func replacedAfterRestart() throws {
        let (directory, journal, registry, store, devices) = try JournalFixture.make(threshold: 1 << 30, devices: 40)
        let body = String(repeating: "x", count: 1000)
        for device in devices { store.accept(JournalFixture.push(to: device, alert: body)) }
        journal.flush(from: store, registry: registry)
        journal.close()
        let reopened = try GatewayJournal(directory: directory, compactionThreshold: 1024)
        let restored = NotificationStore(changed: { reopened.markChanged($0) })
        for notification in reopened.recovered.stored { restored.restore(notification) }
        let again = DeviceRegistry(devices: reopened.recovered.devices)
        // Two rounds: half the journal is dead only when the records from before the restart count.
        for _ in 0..<2 {
            for device in devices { restored.accept(JournalFixture.push(to: device, alert: body)) }
            reopened.flush(from: restored, registry: again)
        }
        reopened.waitForCompaction()
        #expect(reopened.compactions == 1, "the records written before the restart were not counted as replaced")
        reopened.close()
    }

    @Test("pushes accepted while a compaction runs in the background are in the journal it puts in place")
    func appendsDuringCompaction() throws {
        let (directory, journal, registry, store, devices) = try JournalFixture.make(threshold: 2048, devices: 40)
        var newest: [APNSDeviceToken: UUID] = [:]
        for round in 0..<300 {
            // Half the devices each round: flushes land before, during and after compactions.
            for device in devices where (device.token.bytes.first ?? 0) % 2 == UInt8(round % 2) {
                let notification = JournalFixture.push(to: device, alert: "round \(round)")
                store.accept(notification)
                newest[device.token] = notification.apnsID
            }
            #expect(journal.flush(from: store, registry: registry))
        }
        journal.waitForCompaction()
        #expect(journal.compactions > 0, "no compaction ran")
        journal.close()
        let reopened = try GatewayJournal(directory: directory)
        #expect(Dictionary(uniqueKeysWithValues: reopened.recovered.stored.map { ($0.token, $0.apnsID) }) == newest)
        #expect(Set(reopened.recovered.devices.map(\.token)) == Set(devices.map(\.token)))
        reopened.close()
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
        threshold: Int, devices count: Int, in parent: URL = FileManager.default.temporaryDirectory
    ) throws -> (URL, GatewayJournal, DeviceRegistry, NotificationStore, [DeviceRegistry.Device]) {
        let directory = parent.appendingPathComponent("journal-\(UUID().uuidString)")
        let journal = try GatewayJournal(
            directory: directory, compactionThreshold: threshold,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let registry = DeviceRegistry(changed: { devices, replacing throws(GatewayDataError) in
            try journal.record(devices, replacing: replacing)
        })
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
