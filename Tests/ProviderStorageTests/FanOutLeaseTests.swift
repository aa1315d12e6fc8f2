import Foundation
import PostgresNIO
import TestPacing
import Testing

@testable import ProviderStorage

/// A large fan-out taken by leases of any size: on PostgreSQL its deliveries wait in ranges of
/// ``PostgresStore/rangeSize`` numbers until a lease takes them, so these cross ranges on purpose.
@Suite("A fan-out is leased once each, in order, by leases of any size; what waits shows as queued", .startsServers)
struct FanOutLeaseTests {
    /// Three ranges and one delivery more.
    static let devices = 3 * PostgresStore.rangeSize + 1

    @Test(
        "leases of 1, 499, 700 and 5,000 take every delivery once, in number order", arguments: StoreContractTests.kinds
    )
    func leaseSizes(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await broadcast(fixture, at: t0)
            let waiting = try await fixture.traces(id)
            #expect(waiting.count == 100)
            #expect(waiting.allSatisfy { $0.state == .queued && $0.attempts == 0 && $0.notBefore == t0 })
            #expect(try await fixture.stats(id).queued == Self.devices)
            #expect(try await fixture.store.queueDepth() == Self.devices)
            var taken: [Int64] = []
            var sizes: [Int] = []
            for limit in [1, 499, 700, 5000] {
                let leased = try await fixture.store.lease(owner: "a", limit: limit, now: t0, leaseFor: 30)
                sizes.append(leased.count)
                #expect(leased.allSatisfy { $0.notificationID == id && $0.attempts == 1 })
                taken += leased.map(\.id)
            }
            #expect(sizes == [1, 499, 700, Self.devices - 1200])
            #expect(taken == taken.sorted() && Set(taken).count == Self.devices, "each once, in order")
            #expect(try await fixture.store.lease(owner: "b", limit: 5000, now: t0, leaseFor: 30).isEmpty)
            let stats = try await fixture.stats(id)
            #expect(stats.queued == 0 && stats.inFlight == Self.devices)
            #expect(try await fixture.store.queueDepth() == 0)
        }
    }

    @Test("a lease of any size up to Int.max takes what there is", arguments: StoreContractTests.kinds)
    func largestLease(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await broadcast(fixture, at: t0)
            let leased = try await fixture.store.lease(owner: "a", limit: Int.max, now: t0, leaseFor: 30)
            #expect(leased.count == Self.devices && leased.allSatisfy { $0.notificationID == id })
            #expect(try await fixture.store.lease(owner: "a", limit: 0, now: t0, leaseFor: 30).isEmpty)
            #expect(try await fixture.store.lease(owner: "a", limit: -1, now: t0, leaseFor: 30).isEmpty)
        }
    }

    @Test(
        "cancelling part way cancels every delivery not leased yet, in the queue or still waiting to be",
        arguments: StoreContractTests.kinds)
    func cancelPartWay(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await broadcast(fixture, at: t0)
            // 700: one range and part of the next, whose rest waits in the queue.
            let leased = try await fixture.store.lease(owner: "a", limit: 700, now: t0, leaseFor: 30)
            #expect(leased.count == 700)
            #expect(try await fixture.store.cancelNotification(id: id, at: t0 + 1) == Self.devices - 700)
            #expect(try await fixture.store.lease(owner: "b", limit: 5000, now: t0 + 2, leaseFor: 30).isEmpty)
            let stats = try await fixture.stats(id)
            #expect(stats.cancelled == Self.devices - 700 && stats.inFlight == 700 && stats.queued == 0)
            #expect(try await fixture.store.queueDepth() == 0)
        }
    }

    @Test(
        "an unreachable APNs parks what waits, ranges too, and its return wakes them",
        arguments: StoreContractTests.kinds)
    func parkAndWake(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await broadcast(fixture, at: t0)
            #expect(try await fixture.store.lease(owner: "a", limit: 700, now: t0, leaseFor: 30).count == 700)
            let parked = try await fixture.store.park(appID: fixture.appID, reason: "Unreachable", until: t0 + 3600)
            #expect(parked == Self.devices - 700)
            #expect(try await fixture.store.lease(owner: "b", limit: 5000, now: t0 + 1, leaseFor: 30).isEmpty)
            let woken = try await fixture.store.wakeWaiting(appID: fixture.appID, reason: "Unreachable", now: t0 + 2)
            #expect(woken == Self.devices - 700)
            let rest = try await fixture.store.lease(owner: "b", limit: 5000, now: t0 + 2, leaseFor: 30)
            #expect(rest.count == Self.devices - 700 && rest.allSatisfy { $0.notificationID == id })
        }
    }

    @Test(
        "a token reads back as it was given, hex or not; lower-case hex is kept as bytes",
        arguments: StoreContractTests.kinds)
    func tokensReadBack(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let hex = String(repeating: "0f", count: 32)
            let given = [hex, hex.uppercased(), "abc", "not-a-token", "00"]
            let stored = StoredNotification(
                id: "n_tokens", appID: fixture.appID, target: "tokens", payload: Data(#"{"aps":{"alert":"x"}}"#.utf8),
                pushType: "alert", sendAt: t0, targeted: 0, createdAt: t0)
            #expect(try await fixture.store.insertNotification(stored, target: .tokens(given), requireKey: false) == 5)
            let leased = try await fixture.store.lease(owner: "a", limit: 10, now: t0, leaseFor: 30)
            #expect(leased.map(\.address) == given.map { .device(token: $0) })
            #expect(try await fixture.traces("n_tokens").map(\.token) == given)
            if let postgres = fixture.store as? PostgresStore {
                let asBytes = try await postgres.count("SELECT count(*) FROM deliveries WHERE token_bytes IS NOT NULL")
                #expect(asBytes == 2, "the lower-case hex tokens")
            }
        }
    }

    @Test(
        "a lease of whole ranges takes them whole: a broadcast's ranges start at its first delivery, not at a multiple",
        arguments: StoreContractTests.kinds)
    func wholeRanges(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let id = try await broadcast(fixture, at: t0)
            let leased = try await fixture.store.lease(
                owner: "a", limit: 2 * PostgresStore.rangeSize, now: t0, leaseFor: 30)
            #expect(leased.count == 2 * PostgresStore.rangeSize && leased.allSatisfy { $0.notificationID == id })
            if let postgres = fixture.store as? PostgresStore {
                // Ranges cut at multiples of the range size left the first one short, so a lease of whole ranges
                // took one more and queued most of it unleased (written, then rewritten by the next lease).
                let unleased = try await postgres.count("SELECT count(*) FROM delivery_queue WHERE lease_owner IS NULL")
                #expect(unleased == 0)
                #expect(try await postgres.count("SELECT count(*) FROM delivery_ranges") == 2, "500 and 1 left")
            }
        }
    }

    /// A notification to every device of `devices` new ones, due at `at`; its ID.
    private func broadcast(_ fixture: StoreFixture, at: Date) async throws -> String {
        let inputs = (0..<Self.devices).map { DeviceInput(token: String(format: "%064x", $0 + 1)) }
        _ = try await fixture.store.upsertDevices(appID: fixture.appID, inputs, at: at - 60)
        let id = "n_\(UUID().uuidString.prefix(8).lowercased())"
        let stored = StoredNotification(
            id: id, appID: fixture.appID, target: "all", payload: Data(#"{"aps":{"alert":"x"}}"#.utf8),
            pushType: "alert", sendAt: at, targeted: 0, createdAt: at)
        #expect(try await fixture.store.insertNotification(stored, target: .all, requireKey: false) == Self.devices)
        return id
    }
}
