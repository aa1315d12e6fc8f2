import APNSCore
import APNSGateway
import Foundation
import TestPacing
import Testing

@Suite("The gateway's load-test mode (no journal)", .startsServers)
struct GatewayLoadTestModeTests {
    @Test(
        "without a journal a push is stored and answered 200, GET /admin/status says so, and nothing is written to disk"
    )
    func noJournal() async throws {
        let gateway = try await GatewayHarness.start { $0.journal = false }
        let device = try gateway.server.registry.register(bundleID: "com.example.app", environment: .development)
        let reply = try await gateway.push(device.token)
        #expect(reply.status == 200)

        let (status, state) = try await gateway.admin("GET", "/admin/status")
        #expect(status == 200)
        #expect(state["journal"] == .bool(false))
        #expect(state["stored"] == .number(JSONNumber(1)))
        #expect(state["devices"] == .number(JSONNumber(1)))
        guard case .string(let warning)? = state["warning"] else {
            Issue.record("GET /admin/status in the load-test mode has no warning: \(state)")
            return
        }
        #expect(warning.contains("load-test mode") && warning.contains("lost when the gateway stops"))
        #expect(try await gateway.admin("GET", "/admin/status", asAdmin: false).status == 401)
        #expect(!FileManager.default.fileExists(atPath: gateway.directory.appendingPathComponent("journal").path))
        try await gateway.server.shutdown()
        let files = try FileManager.default.contentsOfDirectory(atPath: gateway.directory.path)
        #expect(!files.contains { $0.hasPrefix("journal") }, "\(files)")

        // What it held is gone after a restart, as the warning says.
        let again = try await GatewayHarness.start(directory: gateway.directory, key: gateway.key) {
            $0.journal = false
        }
        #expect(try await again.admin("GET", "/admin/status").json["devices"] == .number(JSONNumber(0)))
        try await again.server.shutdown()
    }

    @Test("a journal already in the data folder is neither read nor changed by a gateway without one")
    func journalLeftAlone() async throws {
        let first = try await GatewayHarness.start()
        let device = try first.server.registry.register(bundleID: "com.example.app", environment: .development)
        #expect(try await first.push(device.token).status == 200)
        try await first.server.shutdown()
        let journal = first.directory.appendingPathComponent("journal")
        let before = try Data(contentsOf: journal)

        let loadTest = try await GatewayHarness.start(directory: first.directory, key: first.key) {
            $0.journal = false
        }
        #expect(try await loadTest.admin("GET", "/admin/status").json["devices"] == .number(JSONNumber(0)))
        let other = try loadTest.server.registry.register(bundleID: "com.example.app", environment: .development)
        #expect(try await loadTest.push(other.token).status == 200)
        try await loadTest.server.shutdown()
        #expect(try Data(contentsOf: journal) == before)

        let back = try await GatewayHarness.start(directory: first.directory, key: first.key)
        let (_, state) = try await back.admin("GET", "/admin/status")
        #expect(state["journal"] == .bool(true))
        #expect(state["devices"] == .number(JSONNumber(1)))
        #expect(state["stored"] == .number(JSONNumber(1)))
        #expect(state["warning"] == nil)
        try await back.server.shutdown()
    }
}
