import Foundation

/// `Benchmarks/latency-proxy.py` in front of a local server: a port that answers as if the server were a round trip
/// away, as APNs is from real providers. The proxy ends when ``stop()`` closes its standard input, however the test
/// ends (python3 may run behind a shim that `terminate()` misses).
package final class LatencyProxy: Sendable {
    /// The port to connect to instead of the server's.
    package let port: Int
    private let input: Pipe

    /// Starts a proxy to `127.0.0.1:targetPort` adding `roundTripMilliseconds` in all (half each way), listening on
    /// `listenPort` (0: a free port; another: the port a stopped proxy had, as a network coming back).
    package init(targetPort: Int, roundTripMilliseconds: Int, listenPort: Int = 0) throws {
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

    /// Ends the proxy.
    package func stop() {
        try? input.fileHandleForWriting.close()
    }

    /// The proxy printed something other than its port.
    package struct ProxyFailed: Error, CustomStringConvertible {
        let output: String
        package var description: String { "Benchmarks/latency-proxy.py did not start: \(output)" }
    }
}
