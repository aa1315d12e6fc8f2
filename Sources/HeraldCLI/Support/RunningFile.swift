import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `DATA/running.json`: what a running `herald up`, `gateway` or `serve` listens on, so `herald status`, `devices` and
/// `log` find it without flags. Written once listening, removed on a clean stop; a file whose process is gone is
/// reported as stale. It holds addresses and file paths, never a secret.
struct RunningFile: Codable, Sendable {
    /// A local APNs.
    struct Gateway: Codable, Sendable {
        var url: String
        /// The channel management API (broadcast channels), when it listens.
        var manageURL: String?
        var caFile: String
        var adminTokenFile: String
    }

    /// A provider API.
    struct Provider: Codable, Sendable {
        var url: String
        /// Where its admin token is, when it was not given on the command line.
        var adminTokenFile: String?
    }

    var command: String
    var pid: Int32
    var started: Date
    var gateway: Gateway?
    var provider: Provider?
    var deviceAPI: String?

    static let name = "running.json"

    /// Whether the process that wrote it still runs.
    var isAlive: Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// Writes it into `folder`, as this process.
    static func write(
        to folder: URL, command: String, gateway: Gateway? = nil, provider: Provider? = nil, deviceAPI: String? = nil
    ) {
        let file = RunningFile(
            command: command, pid: getpid(), started: Date(), gateway: gateway, provider: provider, deviceAPI: deviceAPI
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try? encoder.encode(file).write(to: folder.appendingPathComponent(name), options: .atomic)
    }

    /// Removes the file in `folder` (a clean stop).
    static func remove(from folder: URL) {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }

    /// Reads the file in `folder`.
    static func read(from folder: URL) -> RunningFile? {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            return nil
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(RunningFile.self, from: data)
    }

    /// An absolute path for `path` (relative to the working directory), so the file is right from anywhere.
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
