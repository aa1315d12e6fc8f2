import APNSCore
import Foundation
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

    @Test("the stored form reads back; a device token that merely starts like one stays a device")
    func storedForm() throws {
        let channel = try #require(APNSChannelID(rawValue: "dHN0LTEyMzQ1Njc4OTAxMg=="))
        #expect(DeliveryAddress(stored: DeliveryAddress.channel(channel).stored) == .channel(channel))
        #expect(DeliveryAddress(stored: "abcd") == .device(token: "abcd"))
        #expect(DeliveryAddress(stored: "channel:") == .device(token: "channel:"))
    }
}
