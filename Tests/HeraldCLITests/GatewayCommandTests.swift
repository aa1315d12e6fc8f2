import APNSGateway
import Foundation
import TestPacing
import Testing

@testable import HeraldCLI

@Suite("herald gateway", .startsServers)
struct GatewayCommandTests {
    @Test(
        "bad options exit 2 with a message, before anything listens",
        arguments: [
            ["gateway", "--auth-key", "TEAM:KEY"],
            ["gateway", "--auth-key", "DEF123GHIJ:ABC123DEFG:/no/such/key.p8"],
            ["gateway", "--environment", "staging"],
            ["gateway", "--port", "many"],
        ]
    )
    func badUsage(arguments: [String]) async {
        let result = await runHerald(arguments)
        #expect(result.status == 2)
        #expect(result.errorOutput.contains("error") || result.errorOutput.contains("Error"))
        #expect(result.output.isEmpty)
    }

    @Test("--no-journal is said on start: the banner warns that nothing is kept on disk")
    func noJournalBanner() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("banner-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let admin = try AdminCredential.loadOrCreate(in: folder)
        func banner(journal: Bool) -> String {
            GatewayBanner(
                host: "127.0.0.1", port: 2197, managePort: nil, caPath: "ca.pem", token: "ab", topic: "com.example.app",
                jwt: nil, hasKeys: true, sendAuthKey: nil, admin: admin, journal: journal
            ).text
        }
        #expect(
            banner(journal: false).contains(
                "WARNING: load-test mode (--no-journal): devices, stored notifications and channels are kept in "
                    + "memory only, never written to disk, and lost when the gateway stops"))
        #expect(!banner(journal: true).contains("load-test mode"))
    }
}
