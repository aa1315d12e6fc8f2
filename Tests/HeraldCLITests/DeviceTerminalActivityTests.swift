import APNSGateway
import DeviceSimulator
import Foundation
import GatewayTestSupport
import Synchronization
import TestPacing
import Testing

@testable import HeraldCLI

@Suite("herald device's terminal: activities", .startsServers)
struct DeviceTerminalActivityTests {
    @Test("activity start, update and end, and the list; a wrong command says its form")
    func activities() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.run {
            let manifest = try AppManifest(
                data: Data(
                    #"{"bundleID":"com.example.livescore","activityTypes":[{"name":"ScoreAttributes","contentState":{"score":"0-0"}}]}"#
                        .utf8))
            let device = try await SimulatedDevice.start(
                SimulatedDevice.Configuration(
                    gatewayHost: "127.0.0.1", gatewayPort: gateway.port,
                    caPEM: gateway.server.certificateAuthority.caCertificatePEM, apps: [manifest],
                    dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("term-\(UUID())")))
            let output = Mutex("")
            let terminal = DeviceTerminal(
                device: device,
                io: CommandIO(
                    write: { text in output.withLock { $0 += text } },
                    writeError: { text in output.withLock { $0 += "error: " + text } }, readInput: { Data() }))
            try await terminal.activityCommand(["activity", "start", "com.example.livescore", "ScoreAttributes"])
            let id = try #require(device.activities().first?.id)
            #expect(output.withLock { $0 }.contains("ScoreAttributes active: {\"score\":\"0-0\"} token "))
            try await terminal.activityCommand(["activity", "update", id, "{\"score\":", "\"1-0\"}"])
            try await terminal.activityCommand(["activity", "end", id])
            try await terminal.activityCommand(["activities"])
            #expect(
                output.withLock { $0 }.contains("ScoreAttributes ended: {\"score\":\"1-0\"}"),
                "\(output.withLock { $0 })")
            await #expect(throws: DeviceError.self) { try await terminal.activityCommand(["activity", "jump"]) }
            await #expect(throws: DeviceError.self) {
                try await terminal.activityCommand(["activity", "update", id, "not json"])
            }
            await device.stop()
        }
    }
}
