import Crypto
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import PushProvider

/// Runs when `HERALD_TEST_POSTGRES` names a PostgreSQL database (as `.ci/run` sets it).
@Suite(
    "A PostgreSQL statement never holds its caller past its limit",
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
        await store.close()
    }

    @Test("a statement still running at its limit fails then, naming the limit, and the next statement works")
    func limitReached() async throws {
        try await Self.withStore { store in
            let began = ContinuousClock.now
            await #expect {
                try await store.rows("SELECT pg_sleep(30)", within: .seconds(1))
            } throws: { error in
                "\(error)".contains("did not answer a statement within 1.0 seconds")
            }
            #expect(ContinuousClock.now - began < .seconds(3))
            let depth = try await store.queueDepth()
            #expect(depth == 0, "the next statement on the same pool is answered")
        }
    }

    @Test("a statement whose server process is terminated fails at once, and the next statement works")
    func backendTerminated() async throws {
        try await Self.withStore { store in
            // 31 s: the other test's statement (30 s) is not this one.
            let sleeping = Task { try await store.rows("SELECT pg_sleep(31)") }
            try await eventually("the sleeping statement is running", seconds: 10) {
                try await store.count(
                    """
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE query = 'SELECT pg_sleep(31)'
                    """) > 0
            }
            let began = ContinuousClock.now
            await #expect(throws: ProviderError.self) { try await sleeping.value }
            #expect(ContinuousClock.now - began < .seconds(3))
            let depth = try await store.queueDepth()
            #expect(depth == 0, "the next statement on the same pool is answered")
        }
    }
}
