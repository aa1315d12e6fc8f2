import Crypto
import Foundation
import Logging
import Testing

@testable import ProviderStorage

/// A database the provider cannot start on is named by its cause first, then the fix: no answer at the address, a
/// wrong password, a database that does not exist.
@Suite("Starting on a database that cannot be used: the cause first")
struct PostgresStartupMessageTests {
    func startupError(_ url: String) async -> ProviderError? {
        do {
            let store = try await PostgresStore(
                url: url, logger: Logger(label: "test"), messageKey: SymmetricKey(size: .bits256))
            await store.close()
            return nil
        } catch {
            return error
        }
    }

    @Test("nothing listens at the address: said so, with the URL to fix (no server needed)")
    func nothingListens() async throws {
        // Port 1 (tcpmux): nothing listens there on a machine that runs Herald.
        let port = 1
        let error = try #require(
            await startupError("postgres://herald:secret@127.0.0.1:\(port)/herald?sslmode=disable"))
        let cause = error.cause ?? ""
        #expect(cause.hasPrefix("nothing listens at 127.0.0.1:\(port) (connection refused)"), "\(error)")
        #expect(!cause.contains("secret") && cause.contains("herald:***@"), "the password never shows: \(cause)")
    }

    @Test(
        "a wrong password and a missing database: PostgreSQL's own sentence first",
        .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
    func serverAnswers() async throws {
        let url = try #require(URLComponents(string: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"]!))
        var wrong = url
        wrong.password = "not-the-password"
        var error = try #require(await startupError(wrong.string!))
        #expect(error.cause?.contains("password authentication failed") == true, "\(error)")
        #expect(error.cause?.contains("%40") == true, "how to write a '@' in it: \(error)")
        var missing = url
        missing.path = "/no_such_database_\(UInt32.random(in: 0...UInt32.max))"
        error = try #require(await startupError(missing.string!))
        #expect(error.cause?.contains("does not exist (SQLSTATE 3D000); create the database") == true, "\(error)")
    }
}
