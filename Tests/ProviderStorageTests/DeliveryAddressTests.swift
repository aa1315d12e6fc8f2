import APNSCore
import Foundation
import GRDB
import Testing

@testable import ProviderStorage

@Suite("A delivery goes to a device or to a channel, never to a token that names a channel")
struct DeliveryAddressTests {
    @Test(
        "a broadcast's delivery is leased with its channel, a device's with its token",
        arguments: StoreContractTests.kinds)
    func leasedAddresses(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let channel = try #require(APNSChannelID(rawValue: "dHN0LTEyMzQ1Njc4OTAxMg=="))
            let id = "n_broadcast"
            let stored = StoredNotification(
                id: id, appID: fixture.appID, target: "channel", payload: Data(#"{"aps":{"event":"update"}}"#.utf8),
                pushType: "liveactivity", sendAt: t0, targeted: 1, createdAt: t0)
            let targeted = try await fixture.store.insertNotification(
                stored, target: .channel(channel.rawValue), requireKey: false)
            #expect(targeted == 1)
            _ = try await fixture.notification(tokens: 1, at: t0)
            let leased = try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30)
            #expect(leased.first { $0.notificationID == id }?.address == .channel(channel))
            #expect(leased.first { $0.notificationID != id }?.address == .device(token: String(format: "%064x", 1)))
        }
    }

    @Test("a delivery row's columns read back; a channel ID that no longer reads as one is an empty device token")
    func columns() throws {
        let channel = try #require(APNSChannelID(rawValue: "dHN0LTEyMzQ1Njc4OTAxMg=="))
        #expect(DeliveryAddress(token: "", channelID: channel.rawValue) == .channel(channel))
        #expect(DeliveryAddress(token: "abcd", channelID: nil) == .device(token: "abcd"))
        #expect(DeliveryAddress(token: "channel:abcd", channelID: nil) == .device(token: "channel:abcd"))
        #expect(DeliveryAddress(token: "", channelID: "not base64!") == .device(token: ""))
    }

    @Test("upgrading SQLite moves a broadcast's `channel:<id>` token to its channel column; devices keep theirs")
    func channelRowsUpgraded() throws {
        let queue = try DatabaseQueue()
        try SQLiteSchema.migrator.migrate(queue, upTo: "v8 delivery outcomes")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO apps (id, name, bundle_id, environment, endpoint, auth_kind, sealed_credentials,
                        publishable_key, created_at, updated_at)
                    VALUES ('app', 'App', 'com.example.app', 'development', 'https://127.0.0.1:1', 'token', x'00',
                        'pk', 0, 0);
                    INSERT INTO notifications (id, app_id, target, payload, push_type, send_at, targeted, created_at)
                    VALUES ('n', 'app', 'channel', '{}', 'liveactivity', 0, 1, 0);
                    INSERT INTO deliveries (notification_id, app_id, token, not_before)
                    VALUES ('n', 'app', 'channel:dHN0LTEyMzQ1Njc4OTAxMg==', 0), ('n', 'app', 'aabb', 0);
                    """)
        }
        try SQLiteSchema.migrator.migrate(queue)
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT token, channel_id FROM deliveries ORDER BY id").map {
                DeliveryAddress(token: CompactText.tokenText($0["token"]), channelID: $0["channel_id"])
            }
        }
        let channel = try #require(APNSChannelID(rawValue: "dHN0LTEyMzQ1Njc4OTAxMg=="))
        #expect(rows == [.channel(channel), .device(token: "aabb")])
    }
}
