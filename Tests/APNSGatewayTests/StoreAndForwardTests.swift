import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import HeraldTime
import TestPacing
import Testing

@Suite("Store-and-forward, the courier and the delivery log", .startsServers)
struct StoreAndForwardTests {
    @Test("an online device gets the push the moment it is accepted, and its acknowledgement makes it delivered")
    func onlineDelivery() async throws {
        try await GatewayHarness.with { gateway, _ in
            let device = try await gateway.courier()
            let token = try await device.register(bundleID: "com.example.app", environment: .development).token
            let reply = try await gateway.push(
                token, body: #"{"aps":{"alert":"Now"},"k":1}"#,
                headers: ["apns-collapse-id": "score", "apns-priority": "5"])
            #expect(reply.status == 200)
            let notification = try await device.nextNotification()
            #expect(notification.apnsID.lowercasedText == reply.headers["apns-id"])
            #expect(String(decoding: notification.payload, as: UTF8.self) == #"{"aps":{"alert":"Now"},"k":1}"#)
            #expect(notification.collapseID?.rawValue == "score")
            #expect(notification.priority == .conservePower)
            device.acknowledge(notification)
            let log = try await gateway.waitForEvent("delivered", apnsID: reply.headers["apns-id"] ?? "")
            #expect(log.contains("received") && log.contains("forwarded"))
            let listing = try await gateway.admin("GET", "/admin/devices/\(token.hex)/notifications")
            #expect(listing.json["stored"]?.array?.isEmpty == true)
            #expect(listing.json["delivered"]?.array?.first?["apns-id"]?.string == reply.headers["apns-id"])
            await device.close()
        }
    }

    @Test("an offline device keeps only the newest push; it arrives when the device connects")
    func offlineKeepsNewest() async throws {
        try await GatewayHarness.with { gateway, token in
            let first = try await gateway.push(token.token, body: #"{"aps":{"alert":"first"}}"#)
            let second = try await gateway.push(token.token, body: #"{"aps":{"alert":"second"}}"#)
            #expect(first.status == 200 && second.status == 200)
            let listing = try await gateway.admin("GET", "/admin/devices/\(token.token.hex)/notifications")
            let stored = listing.json["stored"]?.array ?? []
            #expect(stored.count == 1)
            #expect(stored.first?["apns-id"]?.string == second.headers["apns-id"])
            #expect(stored.first?["payload"]?["aps"]?["alert"]?.string == "second")
            #expect(stored.first?["priority"]?.number?.intValue == 10)
            #expect(stored.first?["received"]?.number?.intValue != nil)
            let replaced = try await gateway.admin("GET", "/admin/deliveries?apns-id=\(first.headers["apns-id"] ?? "")")
            let kinds = replaced.json["events"]?.array?.compactMap { $0["event"]?.string }
            #expect(kinds == ["received", "stored", "replaced"])
            // Whose token it was, as the gateway registered it: a console shows an app only its own entries.
            #expect(replaced.json["bundle-id"]?.string == "com.example.app")
            #expect(replaced.json["environment"]?.string == "development")

            let device = try await gateway.courier()
            let kept = try await device.register(
                bundleID: "com.example.app", environment: .development, token: token.token, secret: token.secret)
            #expect(kept.token == token.token)
            let arrived = try await device.nextNotification()
            #expect(arrived.apnsID.lowercasedText == second.headers["apns-id"])
            await device.close()
        }
    }

    @Test("apns-expiration 0 is delivered now or never; a past expiration is dropped as expired")
    func expiration() async throws {
        try await GatewayHarness.with { gateway, device in
            let now = try await gateway.push(device.token, headers: ["apns-expiration": "0"])
            #expect(now.status == 200)
            let discarded = try await gateway.admin("GET", "/admin/deliveries?apns-id=\(now.headers["apns-id"] ?? "")")
            #expect(discarded.json["events"]?.array?.last?["event"]?.string == "discarded")

            let past = try await gateway.push(device.token, headers: ["apns-expiration": "1000"])
            #expect(past.status == 200)
            let listing = try await gateway.admin("GET", "/admin/devices/\(device.token.hex)/notifications")
            #expect(listing.json["stored"]?.array?.isEmpty == true)
            let expired = try await gateway.admin(
                "GET", "/admin/deliveries?apns-unique-id=\(past.headers["apns-unique-id"] ?? "")")
            #expect(expired.json["events"]?.array?.last?["event"]?.string == "expired")
        }
    }

    @Test("a push with the stored push's collapse ID replaces it, and the log says so")
    func collapse() async throws {
        try await GatewayHarness.with { gateway, device in
            let old = try await gateway.push(device.token, headers: ["apns-collapse-id": "game-1"])
            _ = try await gateway.push(device.token, headers: ["apns-collapse-id": "game-1"])
            let log = try await gateway.admin("GET", "/admin/deliveries?apns-id=\(old.headers["apns-id"] ?? "")")
            let last = log.json["events"]?.array?.last
            #expect(last?["event"]?.string == "replaced")
            #expect(last?["detail"]?.string?.contains("collapse ID") == true)
            #expect(last?["replaced-by"]?.string != nil)
        }
    }

    @Test("tokens, removed apps and stored pushes survive a gateway restart")
    func restart() async throws {
        let first = try await GatewayHarness.start()
        let kept = try first.server.registry.register(bundleID: "com.example.app", environment: .development)
        let removed = try first.server.registry.register(bundleID: "com.example.app", environment: .development)
        let stored = try await first.push(kept.token, body: #"{"aps":{"alert":"while you were away"}}"#)
        #expect(stored.status == 200)
        #expect(try await first.admin("DELETE", "/admin/devices/\(removed.token.hex)").status == 204)
        try await first.server.shutdown()

        let second = try await GatewayHarness.start(directory: first.directory, key: first.key)
        let gone = try await second.push(removed.token)
        #expect(gone.status == 410)
        let device = try await second.courier()
        _ = try await device.register(
            bundleID: "com.example.app", environment: .development, token: kept.token, secret: kept.secret)
        let arrived = try await device.nextNotification()
        #expect(arrived.apnsID.lowercasedText == stored.headers["apns-id"])
        #expect(String(decoding: arrived.payload, as: UTF8.self) == #"{"aps":{"alert":"while you were away"}}"#)
        await device.close()
        try await second.server.shutdown()
    }

    @Test("a push answered 200 is already in the journal: a gateway killed right after the answer keeps it")
    func acceptedIsDurable() async throws {
        try await GatewayHarness.with { gateway, device in
            for index in 0..<5 {
                let reply = try await gateway.push(device.token, body: #"{"aps":{"alert":"n\#(index)"}}"#)
                #expect(reply.status == 200)
                // Read at once, well inside the 100 ms the background flush would take.
                let journal = try String(
                    contentsOf: gateway.directory.appendingPathComponent("journal"), encoding: .utf8)
                let apnsID = try #require(reply.headers["apns-id"])
                #expect(journal.contains(apnsID), "push \(index) was answered before it was written")
            }
        }
    }

    @Test("a device that unregisters its app makes later pushes 410 Unregistered")
    func unregister() async throws {
        try await GatewayHarness.with { gateway, _ in
            let device = try await gateway.courier()
            let token = try await device.register(bundleID: "com.example.app", environment: .development).token
            try await device.unregister(token)
            let reply = try await gateway.push(token)
            #expect(reply.status == 410)
            #expect(reply.body.contains("\"Unregistered\""))
            await device.close()
        }
    }

    @Test("an unregistration over the courier is dated by the gateway's clock: the 410's timestamp is that time")
    func unregisterUsesGatewayClock() async throws {
        // A clock half an hour ahead of the real one (a provider token signed now is still valid by it): a
        // timestamp from Date() would be half an hour earlier than this.
        let then = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1800).rounded(.down))
        let gateway = try await GatewayHarness.start { $0.clock = ManualClock(start: then) }
        try await gateway.base.run {
            let device = try await gateway.courier()
            let token = try await device.register(bundleID: "com.example.app", environment: .development).token
            try await device.unregister(token)
            let reply = try await gateway.push(token)
            #expect(reply.status == 410)
            let body = try JSONValue(parsing: Data(reply.body.utf8))
            #expect(body["timestamp"]?.number?.intValue == Int(then.timeIntervalSince1970 * 1000), "\(reply.body)")
            await device.close()
        }
    }

    @Test("a device that disconnects before acknowledging gets the push again when it returns")
    func redeliveryAfterDisconnect() async throws {
        try await GatewayHarness.with { gateway, _ in
            let device = try await gateway.courier()
            let registered = try await device.register(bundleID: "com.example.app", environment: .development)
            let reply = try await gateway.push(registered.token)
            _ = try await device.nextNotification()
            await device.close()
            _ = try await gateway.waitForEvent("stored", apnsID: reply.headers["apns-id"] ?? "")
            let again = try await gateway.courier()
            _ = try await again.register(
                bundleID: "com.example.app", environment: .development, token: registered.token,
                secret: registered.secret)
            #expect(try await again.nextNotification().apnsID.lowercasedText == reply.headers["apns-id"])
            await again.close()
        }
    }

    @Test("a bad courier message gets an error message and the connection keeps working")
    func badCourierMessage() async throws {
        try await GatewayHarness.with { gateway, _ in
            let device = try await gateway.courier()
            await #expect(throws: GatewayDataError.self) {
                _ = try await device.register(bundleID: "not a bundle id", environment: .development)
            }
            let token = try await device.register(bundleID: "com.example.app", environment: .development).token
            #expect(token.bytes.count == 32)
            await device.close()
        }
    }
}

extension CourierClient {
    /// The next notification, skipping other events; fails if the connection closes first.
    func nextNotification() async throws -> AcceptedNotification {
        for await event in events {
            switch event {
            case .notification(let notification): return notification
            case .closed: throw GatewayDataError("the courier closed before a notification arrived")
            case .error, .broadcast: continue
            }
        }
        throw GatewayDataError("the courier closed before a notification arrived")
    }
}

extension UUID {
    var lowercasedText: String { uuidString.lowercased() }
}

extension GatewayHarness {
    /// The delivery log's event names for an `apns-id` once `event` is among them (the courier acknowledges
    /// asynchronously), polling the admin API.
    func waitForEvent(_ event: String, apnsID: String) async throws -> [String] {
        for _ in 0..<200 {
            let log = try await admin("GET", "/admin/deliveries?apns-id=\(apnsID)")
            let kinds = log.json["events"]?.array?.compactMap { $0["event"]?.string } ?? []
            if kinds.contains(event) { return kinds }
            await Task.yield()
        }
        throw GatewayDataError("the delivery log never recorded \(event) for \(apnsID)")
    }
}
