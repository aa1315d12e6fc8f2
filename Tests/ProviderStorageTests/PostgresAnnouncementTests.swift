import Crypto
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import ProviderStorage

/// Providers on one database hear each other's work at once (LISTEN/NOTIFY), instead of at their next poll.
@Suite(
    "Work announced between providers on one database",
    .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
struct PostgresAnnouncementTests {
    @Test("one store's announcement reaches another store's listener on the same schema, not one on another schema")
    func announced() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        let schema = "announce_" + UUID().uuidString.prefix(8).lowercased()
        let url = { (schema: String) in base + (base.contains("?") ? "&" : "?") + "schema=" + schema }
        let logger = Logger(label: "announce")
        let key = SymmetricKey(size: .bits256)
        let speaker = try await PostgresStore(url: url(schema), logger: logger, messageKey: key)
        let listener = try await PostgresStore(url: url(schema), logger: logger, messageKey: key)
        let other = try await PostgresStore(url: url(schema + "_other"), logger: logger, messageKey: key)
        let heard = listener.workAnnouncements()
        let elsewhere = other.workAnnouncements()
        // Announce until heard: the listener's connection is made in the background.
        let announcing = Task {
            while !Task.isCancelled {
                await speaker.announceWork()
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        var iterator = heard.makeAsyncIterator()
        let got: Void? = await iterator.next()
        announcing.cancel()
        #expect(got != nil)
        // The other schema's listener heard nothing (its channel is its own).
        let quiet = Task { await elsewhere.first { _ in true } }
        try await Task.sleep(for: .milliseconds(300))
        quiet.cancel()
        #expect(await quiet.value == nil)
        #expect(try await listener.liveProviders(staleAfter: 5) >= 1)
        for (store, name) in [(speaker, schema), (other, schema + "_other")] {
            _ = try? await store.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(name) CASCADE"))
        }
        for store in [speaker, listener, other] { await store.close() }
    }
}
