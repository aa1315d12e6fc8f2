import Foundation
import ProviderStorage
import PushProvider
import TestPacing
import Testing

@Suite("Choosing the database", .startsServers)
struct DatabaseConfigurationTests {
    @Test("sqlite and postgres URLs are taken; anything else is refused with what to write")
    func parsing() throws {
        #expect(try PushProviderService.Database(parsing: "sqlite") == .sqlite)
        let url = "postgres://herald:secret@db.example.com:6432/herald?sslmode=require&schema=team_a&pool_max_conns=4"
        #expect(try PushProviderService.Database(parsing: url) == .postgres(url: url))
        #expect(
            try PushProviderService.Database(parsing: "postgresql:///herald?host=/var/run/postgresql")
                == .postgres(url: "postgresql:///herald?host=/var/run/postgresql"))
        let refusals = [
            ("mysql://localhost/herald", "postgres://"),
            ("postgres://localhost/herald?sslmode=sometimes", "sslmode"),
            ("postgres://localhost/herald?schema=Bad-Name", "schema"),
            ("postgres://localhost/herald?pool=3", "\"pool\""),
            ("postgres://localhost/herald?pool_max_conns=0", "pool_max_conns"),
            ("postgres://localhost/herald?pool_max_conns=-1", "pool_max_conns"),
            ("postgres://localhost/herald?pool_max_conns=9223372036854775808", "pool_max_conns"),
            ("postgres://localhost/herald?pool_max_conns=1001", "1 to 1000"),
        ]
        for (text, named) in refusals {
            let error = #expect(throws: ProviderError.self) { try PushProviderService.Database(parsing: text) }
            #expect(error?.description.contains(named) == true, "\(text): \(error?.description ?? "")")
        }
    }

    @Test("a database that cannot be reached is a clear error at start, without the password")
    func unreachable() async throws {
        var configuration = PushProviderService.Configuration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("provider-\(UUID())"))
        configuration.database = .postgres(url: "postgres://herald:hunter2@127.0.0.1:1/herald?sslmode=disable")
        let error = await #expect(throws: ProviderError.self) {
            _ = try await PushProviderService(configuration: configuration)
        }
        let message = error?.description ?? ""
        #expect(message.contains("nothing listens at 127.0.0.1:1 (connection refused)"), "\(message)")
        #expect(message.contains("postgres://herald:***@127.0.0.1:1/herald"), "\(message)")
        #expect(!message.contains("hunter2"))
    }
}
