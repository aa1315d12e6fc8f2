import DeviceSimulator
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TestPacing
import Testing

@testable import HeraldCLI

@Suite("herald device", .startsServers)
struct DeviceCommandTests {
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: path)
        return path.path
    }

    @Test("no app, an unreadable or wrong manifest, a bad gateway URL or CA: exit 2 naming the problem")
    func badUsage() async throws {
        let good = try Self.file(#"{"bundleID": "com.example.app"}"#)
        let cases: [([String], String)] = [
            (["device"], "give at least one --app"),
            (["device", "--app", "/no/such/app.json"], "cannot read /no/such/app.json"),
            (
                [
                    "device", "--app",
                    try Self.file(#"{"bundleID": "com.example.app", "serviceExtension": [{"zap": 1}]}"#),
                ],
                "serviceExtension[0]: a step is one of"
            ),
            (["device", "--app", good, "--gateway", "http://127.0.0.1:2197"], "--gateway is the gateway's https URL"),
            (["device", "--app", good, "--ca-file", "/no/such/ca.pem"], "cannot read /no/such/ca.pem"),
            (["device", "--app", good, "--fleet", "0"], "--fleet is between 1 and 100000"),
        ]
        for (arguments, message) in cases {
            let result = await runHerald(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        }
    }
}

@Suite("herald device --fleet", .startsServers)
struct DeviceFleetTests {
    @Test(
        "N devices connect, each with its own token in DATA/tokens.txt, and each receives what is sent to it")
    func fleet() async throws {
        try await SendGateway.with { gateway in
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)")
            let manifest = try AppManifest(data: Data(#"{"bundleID": "com.example.app"}"#.utf8))
            let configuration = SimulatedDevice.Configuration(
                gatewayHost: "127.0.0.1", gatewayPort: Int(gateway.url.split(separator: ":").last!)!,
                caPEM: try String(contentsOfFile: gateway.caFile, encoding: .utf8), apps: [manifest],
                dataDirectory: data)
            let (devices, tokens, file) = try await DeviceFleet(configuration: configuration, count: 3).connect()
            #expect(devices.count == 3)
            #expect(Set(tokens).count == 3)
            #expect(try String(contentsOf: file, encoding: .utf8) == tokens.joined(separator: "\n") + "\n")
            let events = devices.map { $0.events() }
            let sent = await runHerald(gateway.arguments(["--tokens", file.path, "--body", "to the fleet"]))
            #expect(sent.status == 0, "\(sent.output) \(sent.errorOutput)")
            for (index, stream) in events.enumerated() {
                var delivered = false
                for await event in stream where event.kind == .delivered {
                    delivered = true
                    break
                }
                #expect(delivered, "device \(index)")
            }
            for device in devices { await device.stop() }
        }
    }
}

@Suite("herald device's terminal", .startsServers)
struct DeviceTerminalQuitTests {
    @Test("quit ends the command: the device stops and the group shuts down, no signal sent")
    func quitReturns() async throws {
        try await SendGateway.with { gateway in
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("quit-\(UUID().uuidString)")
            let configuration = SimulatedDevice.Configuration(
                gatewayHost: "127.0.0.1", gatewayPort: Int(gateway.url.split(separator: ":").last!)!,
                caPEM: try String(contentsOfFile: gateway.caFile, encoding: .utf8),
                apps: [try AppManifest(data: Data(#"{"bundleID": "com.example.app"}"#.utf8))], dataDirectory: data)
            let shutdown = CommandShutdown()
            var session = DeviceSession(
                configuration: configuration, apiHost: "127.0.0.1", apiPort: 0, interactive: true)
            session.shutdown = shutdown
            session.terminalInput = {
                AsyncStream { continuation in
                    for line in ["list", "quit", "clear"] { continuation.yield(line) }
                    // The input stays open: only `quit` can end the command.
                }
            }
            let output = Mutex("")
            let io = CommandIO(
                write: { text in output.withLock { $0 += text } },
                writeError: { text in output.withLock { $0 += "error: " + text } }, readInput: { Data() })
            try await CommandIO.$current.withValue(io) {
                try await CommandServices.run(
                    [.init(service: session, successTerminationBehavior: .gracefullyShutdownGroup)],
                    logger: Logger(label: "quit-test"), shutdown: shutdown)
            }
            let printed = output.withLock { $0 }
            #expect(printed.contains("no notifications"), "\(printed)")
            #expect(!printed.contains("cleared"), "nothing is read after quit: \(printed)")
        }
    }
}
