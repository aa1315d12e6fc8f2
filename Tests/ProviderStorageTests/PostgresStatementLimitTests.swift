import Crypto
import Foundation
import Logging
import PostgresNIO
import TestPacing
import Testing

@testable import ProviderStorage

/// Runs when `HERALD_TEST_POSTGRES` names a PostgreSQL database (as `.ci/run` sets it).
@Suite(
    "A PostgreSQL statement never holds its caller past its limit", .startsServers,
    .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
struct PostgresStatementLimitTests {
    private static func withStore(_ body: (PostgresStore) async throws -> Void) async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"])
        let schema = "t_limit_" + UUID().uuidString.prefix(8).lowercased()
        let store = try await PostgresStore(
            url: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, logger: Logger(label: "test"),
            messageKey: SymmetricKey(size: .bits256))
        do {
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        // Each run left its schemas behind.
        _ = try? await store.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
        await store.close()
    }

    @Test("a statement still running at its limit fails then, naming the limit, and the pool answers again at once")
    func limitReached() async throws {
        try await Self.withStore { store in
            let began = ContinuousClock.now
            await #expect {
                try await store.rows("SELECT pg_sleep(30)", within: .seconds(1))
            } throws: { error in
                "\(error)".contains("did not answer a statement within 1.0 seconds")
            }
            #expect(ContinuousClock.now - began < .seconds(15), "well before the 30 s statement would have ended")
            #expect(await Self.answersAgain(store), "a statement on the same pool is answered within 15 s")
        }
    }

    /// Whether the pool answers a statement within 15 s (far less than the 30 s statement, however loaded the
    /// machine): one asked right after a connection was closed may still be
    /// given it once (the provider's callers then get a 503 and ask again, the engine retries).
    static func answersAgain(_ store: PostgresStore) async -> Bool {
        let began = ContinuousClock.now
        while ContinuousClock.now - began < .seconds(15) {
            if (try? await store.queueDepth()) == 0 { return true }
        }
        return false
    }

    @Test("a statement whose server process is terminated fails at once, and the pool answers again at once")
    func backendTerminated() async throws {
        try await Self.withStore { store in
            // 31 s: the other test's statement (30 s) is not this one.
            let sleeping = Task { try await store.rows("SELECT pg_sleep(31)") }
            // The look-up itself may meet a connection the pool has not yet seen closed (a CI run did): it is
            // asked again, as the provider's callers ask again after a 503.
            // PostgreSQL tells no one when a statement starts: its process list is asked until it is there.
            let looking = ContinuousClock.now
            while (try? await store.count(
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE query = 'SELECT pg_sleep(31)'
                """)) ?? 0 == 0
            {
                try #require(ContinuousClock.now - looking < .seconds(25), "the sleeping statement did not run in 25 s")
                try await Task.sleep(for: .milliseconds(50))
            }
            let began = ContinuousClock.now
            await #expect(throws: ProviderError.self) { try await sleeping.value }
            #expect(ContinuousClock.now - began < .seconds(15), "well before the 30 s statement would have ended")
            #expect(await Self.answersAgain(store), "a statement on the same pool is answered within 15 s")
        }
    }
}
