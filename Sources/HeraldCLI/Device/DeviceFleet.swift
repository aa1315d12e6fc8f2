import DeviceSimulator
import Foundation
import ServiceLifecycle

/// `herald device --fleet N`: N simulated devices in one process, for load and latency tests. Each device has its
/// own folder (`DATA/0000`, `DATA/0001`, ...), so a restarted fleet keeps its tokens; every token is written to
/// `DATA/tokens.txt`, one per line, ready for `herald send --tokens`. A service of the command's group
/// (``CommandServices``).
struct DeviceFleet: Service {
    let configuration: SimulatedDevice.Configuration
    let count: Int
    /// Devices connecting at once.
    static let connectingAtOnce = 50

    /// Runs until the group shuts down (SIGINT, SIGTERM).
    func run() async throws {
        let started = ContinuousClock.now
        let (devices, tokens, tokensFile) = try await connect()
        let seconds = (ContinuousClock.now - started).components.seconds
        CommandIO.current.write(
            """
            herald device: \(devices.count) devices connected to \(configuration.gatewayHost):\
            \(configuration.gatewayPort) in \(seconds) s; \(tokens.count) tokens in \(tokensFile.path)

            """)
        try? await gracefulShutdown()
        await withTaskGroup(of: Void.self) { group in
            for device in devices { group.addTask { await device.stop() } }
        }
    }

    /// Installs and connects every device, ``connectingAtOnce`` at a time, and writes the tokens file.
    func connect() async throws -> (devices: [SimulatedDevice], tokens: [String], file: URL) {
        var devices: [SimulatedDevice] = []
        for first in stride(from: 0, to: count, by: Self.connectingAtOnce) {
            let range = first..<min(first + Self.connectingAtOnce, count)
            devices += try await withThrowingTaskGroup(of: (Int, SimulatedDevice).self) { group in
                for index in range {
                    var device = configuration
                    device.dataDirectory = configuration.dataDirectory.appendingPathComponent(
                        String(format: "%04d", index))
                    group.addTask {
                        do {
                            let simulated = try await SimulatedDevice.install(device)
                            try await simulated.connect()
                            return (index, simulated)
                        } catch {
                            throw UsageError("device \(index): \(error)")
                        }
                    }
                }
                var connected: [(Int, SimulatedDevice)] = []
                for try await pair in group { connected.append(pair) }
                return connected.sorted { $0.0 < $1.0 }.map(\.1)
            }
        }
        let tokens = devices.flatMap { $0.installedApps.compactMap(\.token) }
        let file = configuration.dataDirectory.appendingPathComponent("tokens.txt")
        do {
            try Data((tokens.joined(separator: "\n") + "\n").utf8).write(to: file, options: .atomic)
        } catch {
            throw UsageError("cannot write \(file.path): \(error)")
        }
        return (devices, tokens, file)
    }
}
