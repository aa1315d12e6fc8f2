import Foundation
import TestPacing

/// `Benchmarks/latency-proxy.py` in front of a local server: a port that answers as if the server were a round trip
/// away, as APNs is from real providers. The proxy ends when ``stop()`` closes its standard input, however the test
/// ends (python3 may run behind a shim that `terminate()` misses), and ``stop()`` returns once it has ended: its port
/// then refuses connections and may be listened on again.
package final class LatencyProxy: Sendable {
    /// The port to connect to instead of the server's.
    package let port: Int
    private let input: Pipe
    private let ended = DispatchSemaphore(value: 0)

    /// Starts a proxy to `127.0.0.1:targetPort` adding `roundTripMilliseconds` in all (half each way), listening on
    /// `listenPort` (0: a free port; another: the port a stopped proxy had, as a network coming back).
    package init(targetPort: Int, roundTripMilliseconds: Int, listenPort: Int = 0) throws {
        ServerSlots.requireSlot("a latency proxy")
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/latency-proxy.py")
        proxy.arguments = [
            "python3", script.path, "--target", "127.0.0.1:\(targetPort)", "--rtt-ms", "\(roundTripMilliseconds)",
            "--exit-with-stdin", "--listen", "\(listenPort)",
        ]
        let output = Pipe()
        proxy.standardOutput = output
        proxy.standardError = FileHandle.nullDevice
        input = Pipe()
        proxy.standardInput = input
        proxy.terminationHandler = { [ended] _ in ended.signal() }
        try proxy.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard
            let port = Int(
                line.replacingOccurrences(of: "listening on ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
            )
        else {
            try? input.fileHandleForWriting.close()
            throw ProxyFailed(output: line)
        }
        self.port = port
    }

    /// Ends the proxy and waits (at most 10 seconds) until it has: a test that takes the network away right after
    /// must not still reach the server through a proxy on its way out, nor find the port taken when it comes back.
    package func stop() {
        try? input.fileHandleForWriting.close()
        if ended.wait(timeout: .now() + 10) == .success { ended.signal() }  // a second stop() returns at once
    }

    /// The proxy printed something other than its port.
    package struct ProxyFailed: Error, CustomStringConvertible {
        let output: String
        package var description: String { "Benchmarks/latency-proxy.py did not start: \(output)" }
    }
}
