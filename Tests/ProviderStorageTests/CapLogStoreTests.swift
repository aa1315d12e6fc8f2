import Foundation
import TestPacing
import Testing

@testable import ProviderStorage

/// The frequency caps' send log in each store: SQLite always, PostgreSQL with `HERALD_TEST_POSTGRES`.
@Suite("The frequency caps' send log in the store", .startsServers)
struct CapLogStoreTests {
    @Test(
        "250 subjects logged at once (three statements' worth), once each; read by window; pruned by age",
        arguments: StoreContractTests.kinds)
    func sendLog(kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let store = fixture.store
            let app = fixture.appID
            let t0 = Date(timeIntervalSince1970: 2_000_000_000)
            let subjects = (0..<250).map { String(format: "%064x", $0) } + ["u:ana"]
            try await store.recordCapSends(
                appID: app, category: "marketing", notificationID: "n1", subjects: subjects, at: t0)
            // Again (a retry, the user's other device): nothing doubles.
            try await store.recordCapSends(
                appID: app, category: "marketing", notificationID: "n1", subjects: subjects, at: t0 + 5)
            try await store.recordCapSends(
                appID: app, category: "marketing", notificationID: "n2", subjects: ["u:ana"], at: t0 + 3600)
            try await store.recordCapSends(
                appID: app, category: "news", notificationID: "n3", subjects: ["u:ana"], at: t0 + 3600)
            let all = try await store.capSends(appID: app, category: "marketing", subjects: subjects, since: t0)
            #expect(all.count == 251 && all["u:ana"] == ["n1", "n2"] && all[subjects[249]] == ["n1"])
            let lastHour = try await store.capSends(
                appID: app, category: "marketing", subjects: ["u:ana"], since: t0 + 60)
            #expect(lastHour == ["u:ana": ["n2"]])
            #expect(try await store.pruneCapLog(before: t0 + 60, limit: 100) == 100)
            #expect(try await store.pruneCapLog(before: t0 + 60, limit: 1_000) == 151)
            let left = try await store.capSends(appID: app, category: "marketing", subjects: subjects, since: t0)
            #expect(left == ["u:ana": ["n2"]])
        }
    }
}
