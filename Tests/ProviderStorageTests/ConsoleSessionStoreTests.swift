import Foundation
import TestPacing
import Testing

@testable import ProviderStorage

/// What every store promises the console: sessions by the hash of their identifier, capped per key, per address and
/// in all; one-time codes; failed sign-ins by address. SQLite always, PostgreSQL with `HERALD_TEST_POSTGRES`.
@Suite("The console's sessions in the store", .startsServers)
struct ConsoleSessionStoreTests {
    static func session(_ id: String, key: String = "k1", address: String = "10.0.0.1", until: Date)
        -> StoredConsoleSession
    {
        StoredConsoleSession(
            idHash: id, csrfToken: "csrf-\(id)", sealedKey: "sealed-\(key)", keyHash: key, holderAppID: nil,
            address: address, expiresAt: until)
    }

    @Test(
        "sessions: stored, read until they lapse, extended, capped, closed; codes spent once; failures counted",
        arguments: StoreContractTests.kinds)
    func contract(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let store = fixture.store
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let limits = ConsoleSessionLimits(perKey: 2, perAddress: 3, capacity: 4)
            #expect(try await store.openConsoleSession(Self.session("a", until: t0 + 100), limits: limits, now: t0))
            #expect(try await store.consoleSession(idHash: "a", now: t0 + 99)?.csrfToken == "csrf-a")
            #expect(try await store.consoleSession(idHash: "a", now: t0 + 100) == nil, "lapsed")
            try await store.extendConsoleSession(idHash: "a", until: t0 + 200)
            #expect(try await store.consoleSession(idHash: "a", now: t0 + 150)?.sealedKey == "sealed-k1")
            // Per key: a third session of k1 ends its first (the one that lapses first).
            #expect(try await store.openConsoleSession(Self.session("b", until: t0 + 300), limits: limits, now: t0))
            #expect(try await store.openConsoleSession(Self.session("c", until: t0 + 400), limits: limits, now: t0))
            #expect(try await store.consoleSession(idHash: "a", now: t0) == nil)
            #expect(try await store.consoleSession(idHash: "b", now: t0) != nil)
            // Per address: refused at 3 from 10.0.0.1; in all: refused at 4.
            let k2 = Self.session("d", key: "k2", until: t0 + 500)
            #expect(try await store.openConsoleSession(k2, limits: limits, now: t0))
            #expect(
                try await store.openConsoleSession(
                    Self.session("e", key: "k3", until: t0 + 500), limits: limits, now: t0) == false)
            #expect(
                try await store.openConsoleSession(
                    Self.session("f", key: "k3", address: "10.0.0.2", until: t0 + 500), limits: limits, now: t0))
            #expect(
                try await store.openConsoleSession(
                    Self.session("g", key: "k4", address: "10.0.0.3", until: t0 + 500), limits: limits, now: t0)
                    == false)
            try await store.closeConsoleSession(idHash: "b")
            #expect(try await store.consoleSession(idHash: "b", now: t0) == nil)
            // Codes: once, and only before they lapse.
            try await store.addConsoleLoginCode(codeHash: "x", sealedKey: "sk", expiresAt: t0 + 900, now: t0)
            #expect(try await store.redeemConsoleLoginCode(codeHash: "x", now: t0 + 10) == "sk")
            #expect(try await store.redeemConsoleLoginCode(codeHash: "x", now: t0 + 10) == nil)
            try await store.addConsoleLoginCode(codeHash: "y", sealedKey: "sk", expiresAt: t0 + 900, now: t0)
            #expect(try await store.redeemConsoleLoginCode(codeHash: "y", now: t0 + 901) == nil)
            // Failures: by address, only those after `since`.
            for second in [0.0, 30, 59] {
                try await store.recordConsoleSignInFailure(address: "10.0.0.9", at: t0 + second)
            }
            #expect(try await store.consoleSignInFailures(address: "10.0.0.9", since: t0).count == 2)
            #expect(try await store.consoleSignInFailures(address: "10.0.0.8", since: t0 - 60).isEmpty)
        }
    }
}
