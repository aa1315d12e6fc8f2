import APNSCore
import Foundation
import GatewayTestSupport
import HeraldKit
import Synchronization
import TestPacing
import Testing
import UserNotifications

@testable import PushProvider

/// HeraldKit against a real provider on a port, as an iOS app uses it: the app registers, its service extension and
/// delegate report, the reports wait on disk while the provider cannot be reached and go once, in order.
@Suite("HeraldKit: registration and receipts against a real provider", .startsServers)
struct HeraldKitReceiptTests {
    static func herald(
        _ harness: ProviderHarness,
        folder: URL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "heraldkit-\(UUID())"), baseURL: String? = nil, onProblem: (@Sendable (HeraldError) -> Void)? = nil
    ) throws -> Herald {
        var configuration = HeraldConfiguration(
            providerURL: URL(string: baseURL ?? harness.baseURL)!, publishableKey: harness.publishableKey,
            folder: folder)
        configuration.bundleID = ProviderHarness.bundleID
        configuration.longestRetryDelay = .seconds(1)
        return try Herald(configuration: configuration, onProblem: onProblem)
    }

    /// A push as the app's service extension sees it: its payload (with the provider's `herald-id`) as userInfo.
    static func request(apnsID: String, identifier: String = UUID().uuidString) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.title = "Hello"
        content.userInfo = [Herald.receiptIDKey: apnsID]
        return UNNotificationRequest(identifier: identifier, content: content, trigger: nil)
    }

    @Test("register, then delivered and displayed from the extension: the delivery's verdict moves to displayed")
    func receiptsReachTheVerdict() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let herald = try Self.herald(harness)
            try await herald.register(deviceToken: try HeraldKitReceiptTests.bytes(token))
            #expect(herald.registeredToken == token)
            let request = Self.request(apnsID: apnsID.lowercased())
            herald.didReceive(request)
            herald.willHand(request.content, for: request)
            #expect(await herald.sendReceipts())
            let deliveries = try await harness.call("GET", "/v1/notifications/\(id)/deliveries").1
            let delivery = try #require(deliveries.array.first)
            #expect(delivery["verdict"]["verdict"].string == "shown", "\(delivery)")
            #expect(herald.receiptQueue.waiting == 0)
        }
    }

    @Test("a push with mutable-content is reported shown once, by the extension's willHand; willPresent adds nothing")
    func shownOnce() async throws {
        try await ProviderHarness.with { harness in
            let (_, apnsID, token) = try await harness.sentToOneDevice()
            // Registered, then the same folder (the registration is kept there) with a provider nothing answers for,
            // so the receipts stay queued to be counted.
            let registered = try Self.herald(harness)
            try await registered.register(deviceToken: try Self.bytes(token))
            let herald = try Self.herald(
                harness, folder: registered.configuration.folder, baseURL: "http://127.0.0.1:9")
            #expect(herald.registeredToken == token)
            let content = UNMutableNotificationContent()
            content.title = "Hello"
            content.userInfo = [Herald.receiptIDKey: apnsID.lowercased(), "aps": ["mutable-content": 1]]
            let request = UNNotificationRequest(identifier: "n", content: content, trigger: nil)
            herald.didReceive(request)
            herald.willHand(request.content, for: request)
            herald.willPresent(UNNotification(request: request, date: Date()))
            #expect(!(await herald.sendReceipts()))
            #expect(herald.receiptQueue.waiting == 2, "delivered and displayed, once each")
            // Without mutable-content no extension ran: the foreground presentation is the one that reports it.
            let plain = Self.request(apnsID: apnsID.lowercased())
            herald.willPresent(UNNotification(request: plain, date: Date()))
            #expect(!(await herald.sendReceipts()))
            #expect(herald.receiptQueue.waiting == 3)
        }
    }

    /// A device token's bytes, as iOS hands them to `didRegisterForRemoteNotificationsWithDeviceToken`.
    static func bytes(_ hex: String) throws -> Data {
        try APNSDeviceToken(hex: hex).bytes
    }

    /// A response to a push, as the notification center's delegate gets it.
    static func response(apnsID: String, action: String, text: String? = nil) -> UNNotificationResponse {
        let notification = UNNotification(request: request(apnsID: apnsID), date: Date())
        if let text {
            return UNTextInputNotificationResponse(notification: notification, actionIdentifier: action, userText: text)
        }
        return UNNotificationResponse(notification: notification, actionIdentifier: action)
    }

    /// The responses the provider recorded for notifications `ids`, in the order it recorded them.
    static func responses(_ harness: ProviderHarness, _ ids: String...) async throws -> [String] {
        var recorded: [(Int, String)] = []
        for id in ids {
            let answer = try await harness.call("GET", "/v1/notifications/\(id)/responses").1
            recorded += answer.array.map { response in
                let words = [response["event"].string, response["action"].string, response["text"].string]
                return (response["id"].int ?? 0, words.compactMap { $0 }.joined(separator: " "))
            }
        }
        return recorded.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// `count` notifications sent to one new device: their IDs and apns-ids, and the device's token. A person
    /// answers each notification once, so a test of several answers needs several notifications.
    static func sent(_ count: Int, _ harness: ProviderHarness) async throws
        -> (ids: [String], apnsIDs: [String], token: String)
    {
        var sent: (ids: [String], apnsIDs: [String], token: String) = ([], [], try harness.gatewayToken())
        for _ in 0..<count {
            let (id, apnsID, token) = try await harness.sentToOneDevice(token: sent.token)
            sent.ids.append(id)
            sent.apnsIDs.append(apnsID)
            sent.token = token
        }
        return sent
    }

    @Test("offline: responses wait on disk, and when the network is back each reaches the provider once, in order")
    func offlineThenBack() async throws {
        try await ProviderHarness.with { harness in
            let (ids, apnsIDs, token) = try await Self.sent(3, harness)
            let network = try LatencyProxy(targetPort: harness.port, roundTripMilliseconds: 0)
            let port = network.port
            let herald = try Self.herald(harness, baseURL: "http://127.0.0.1:\(port)")
            try await herald.register(deviceToken: try Self.bytes(token))
            network.stop()
            herald.didReceive(Self.response(apnsID: apnsIDs[0], action: "like"))
            herald.didReceive(Self.response(apnsID: apnsIDs[1], action: "comment", text: "first"))
            herald.didReceive(Self.response(apnsID: apnsIDs[2], action: UNNotificationDefaultActionIdentifier))
            #expect(await herald.sendReceipts() == false)
            #expect(herald.receiptQueue.waiting == 3)
            #expect(herald.problems.contains { if case .unavailable = $0 { true } else { false } })
            let back = try LatencyProxy(targetPort: harness.port, roundTripMilliseconds: 0, listenPort: port)
            defer { back.stop() }
            // Nothing calls HeraldKit now: its own retry (at most a second here) sends them.
            try await harness.until("the three responses") {
                try await Self.responses(harness, ids[0], ids[1], ids[2]).count >= 3
            }
            // Read first so a failure prints what arrived (a loaded full run once saw something else, not reproduced).
            let responses = try await Self.responses(harness, ids[0], ids[1], ids[2])
            #expect(responses == ["action like", "action comment first", "opened"])
            // The provider records a receipt before it answers; HeraldKit removes the file when the answer arrives.
            try await harness.until("the queue emptied") { herald.receiptQueue.waiting == 0 }
        }
    }

    @Test("a receipt reported while another is being sent: the send that follows waits for it and finds none left")
    func reportDuringSend() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let herald = try Self.herald(harness)
            try await herald.register(deviceToken: try Self.bytes(token))
            // Each report starts a send of its own; sendReceipts() right after meets it under way. Two passes at
            // once (both waiting on one, then both starting) made it see the other's claimed file and say false.
            // The same answer each round (a person answers once; a repeat is answered 202 "repeated").
            for round in 0..<40 {
                herald.report(Receipt(.action, apnsID: apnsID, token: token, action: "a0"))
                #expect(await herald.sendReceipts(), "round \(round)")
            }
            #expect(herald.receiptQueue.waiting == 0)
            let responses = try await Self.responses(harness, id)
            #expect(responses == ["action a0"])
        }
    }

    @Test("a receipt sent again (the app killed before it heard the answer) is recorded once and counted once")
    func resentReceiptIsRecordedOnce() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let herald = try Self.herald(harness)
            try await herald.register(deviceToken: try Self.bytes(token))
            let receipt = Receipt(.action, apnsID: apnsID, token: token, action: "like")
            herald.report(receipt)
            #expect(await herald.sendReceipts())
            herald.report(receipt)
            #expect(await herald.sendReceipts())
            #expect(try await Self.responses(harness, id) == ["action like"])
            let stats = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
            #expect(stats["actions"]["like"].int == 1)
        }
    }

    @Test("a refused receipt (a reply past 4,096 bytes: 413) is dropped with the reason; the next one still goes")
    func refusedReceiptDoesNotBlockTheQueue() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let herald = try Self.herald(harness)
            try await herald.register(deviceToken: try Self.bytes(token))
            herald.didReceive(
                Self.response(apnsID: apnsID, action: "comment", text: String(repeating: "x", count: 5000)))
            herald.didReceive(Self.response(apnsID: apnsID, action: "like"))
            #expect(await herald.sendReceipts())
            #expect(try await Self.responses(harness, id) == ["action like"])
            #expect(herald.problems.contains { if case .refused(413, _) = $0 { true } else { false } })
        }
    }

    @Test("the queue keeps at most its limit, drops the oldest and counts them; each queued receipt is under 1 KB")
    func boundedQueue() async throws {
        try await ProviderHarness.with { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heraldkit-\(UUID())")
            var configuration = HeraldConfiguration(
                providerURL: URL(string: "http://127.0.0.1:9")!, publishableKey: harness.publishableKey, folder: folder)
            configuration.receiptLimit = 5
            let herald = try Herald(configuration: configuration)
            for index in 0..<8 {
                herald.report(Receipt(.displayed, apnsID: "id-\(index)", token: String(repeating: "ab", count: 32)))
            }
            _ = await herald.sendReceipts()
            #expect(herald.receiptQueue.waiting == 5)
            #expect(herald.receiptQueue.dropped == 3)
            let receipts = folder.appendingPathComponent("receipts")
            let files = try FileManager.default.contentsOfDirectory(atPath: receipts.path).filter {
                $0.contains(".json")
            }
            // HeraldKit's own sender may be claiming a file (renaming it `.sending.…`) or giving it back meanwhile.
            let kept = files.sorted().compactMap { name -> Data? in
                let base = name.firstRange(of: ".sending").map { String(name[..<$0.lowerBound]) } ?? name
                let now = (try? FileManager.default.contentsOfDirectory(atPath: receipts.path)) ?? []
                return [name, base].compactMap { try? Data(contentsOf: receipts.appendingPathComponent($0)) }.first
                    ?? now.first { $0.hasPrefix(base) }.flatMap {
                        try? Data(contentsOf: receipts.appendingPathComponent($0))
                    }
            }
            #expect(kept.count == 5)
            #expect(kept.allSatisfy { $0.count < 1024 })
            #expect(String(decoding: try #require(kept.first), as: UTF8.self).contains("id-3"))
        }
    }

    @Test("a queue file that does not parse is counted and removed; the others are sent")
    func corruptQueueFile() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let herald = try Self.herald(harness)
            try await herald.register(deviceToken: try Self.bytes(token))
            let receipts = herald.configuration.folder.appendingPathComponent("receipts")
            try Data("{\"event\": \"act".utf8).write(to: receipts.appendingPathComponent("00000000000000000001-0.json"))
            try Data([0xFF, 0x00]).write(to: receipts.appendingPathComponent("00000000000000000002-0.json"))
            herald.didReceive(Self.response(apnsID: apnsID, action: "like"))
            #expect(await herald.sendReceipts())
            #expect(herald.receiptQueue.corrupt == 2)
            #expect(try await Self.responses(harness, id) == ["action like"])
        }
    }

    @Test("a push that did not come through Herald (no herald-id) is not reported; a device never registered neither")
    func unreportable() async throws {
        try await ProviderHarness.with { harness in
            let herald = try Self.herald(harness)
            let content = UNMutableNotificationContent()
            content.title = "straight to APNs"
            herald.didReceive(UNNotificationRequest(identifier: "x", content: content, trigger: nil))
            #expect(herald.receiptQueue.waiting == 0)
            herald.didReceive(Self.request(apnsID: UUID().uuidString))
            #expect(herald.receiptQueue.waiting == 0)
            #expect(herald.problems.count == 1)
        }
    }

    @Test("an app whose devices never report gets one note that receipts need HeraldKit; one receipt ends it")
    func noReceiptsNote() async throws {
        try await ProviderHarness.with { harness in
            let (id, apnsID, token) = try await harness.sentToOneDevice()
            let (other, _, _) = try await harness.sentToOneDevice()
            var breakdown = try await harness.call("GET", "/v1/notifications/\(id)/breakdown").1
            #expect(breakdown["note"].string == NotificationBreakdown.noReceiptsNote)
            let herald = try Self.herald(harness)
            try await herald.register(deviceToken: try Self.bytes(token))
            herald.didReceive(Self.request(apnsID: apnsID))
            #expect(await herald.sendReceipts())
            breakdown = try await harness.call("GET", "/v1/notifications/\(other)/breakdown").1
            #expect(breakdown["verdicts"][0]["verdict"].string == "awaitingDevice")
            #expect(breakdown["note"].string == nil)
        }
    }

    @Test(
        "a full disk: the receipt is not queued, is sent from memory, and the problem says so",
        .enabled(if: SmallDisk.isAvailable, "mounting a small disk needs root"))
    func fullDisk() async throws {
        try await SmallDisk.with(kilobytes: 256) { disk in
            try await ProviderHarness.with { harness in
                let (id, apnsID, token) = try await harness.sentToOneDevice()
                let problems = ProblemsSeen()
                let herald = try Self.herald(
                    harness, folder: disk.url.appendingPathComponent("herald"), onProblem: problems.add)
                try await herald.register(deviceToken: try Self.bytes(token))
                try disk.fill(leaving: 0)
                herald.didReceive(Self.response(apnsID: apnsID, action: "like"))
                try await harness.until("the response sent from memory") {
                    try await Self.responses(harness, id) == ["action like"]
                }
                #expect(problems.all.contains { if case .storage = $0 { true } else { false } })
                #expect(herald.receiptQueue.waiting == 0)
            }
        }
    }
}
