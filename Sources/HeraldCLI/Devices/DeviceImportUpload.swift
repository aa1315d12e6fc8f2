import APNSCore
import Foundation
import HeraldConsole
import NIOHTTP1

/// Sends a checked ``DeviceImportFile`` to the provider's `POST /v1/devices/import`, a batch per request and two
/// requests at a time (the provider writes one while it reads the next). A provider that is restarting, overloaded
/// or out of reach is waited for, the same batch sent again (a registration sent twice is the same registration);
/// a batch it refuses stops the import, saying which lines were imported and where to start again.
struct DeviceImportUpload {
    let file: DeviceImportFile
    let call: ServiceCall
    let appID: String
    /// The most registrations in one request (the route takes up to 100,000).
    let batchSize: Int
    /// How long one batch is tried again while the provider cannot take it.
    let patience: Duration
    let io: CommandIO
    /// How often progress is printed.
    var progressEvery: Duration = .seconds(5)

    /// The most bytes in one request's body (the route reads up to 16 MB).
    static let maximumBodyBytes = 8 << 20
    /// Requests in flight at once.
    static let inFlight = 2

    /// A run of lines sent in one request.
    struct Batch: Sendable {
        var index: Int
        /// The line of each registration, in order (an error names `devices[i]`).
        var lines: [Int]
        var body: Data
    }

    /// What an import did.
    struct Summary {
        var imported = 0
        var created = 0
    }

    /// Why a batch was not imported.
    struct Refusal: Error {
        var message: String
    }

    /// Sends every registration of the file; the summary when all were imported.
    ///
    /// - Throws: ``CommandFailure`` naming the lines imported and the line to start again from.
    func run(total: Int) async throws -> Summary {
        let entries = try file.entries()
        var summary = Summary()
        var firstLines: [Int: Int] = [:]  // batch index → its first line, while not imported
        var failure: (index: Int, message: String)?
        let began = ContinuousClock.now
        var lastProgress = began
        var nextIndex = 0
        try await withThrowingTaskGroup(of: (Int, Result<(imported: Int, created: Int), Refusal>).self) { group in
            var running = 0
            while true {
                while failure == nil, running < Self.inFlight, let batch = try nextBatch(entries, index: nextIndex) {
                    nextIndex += 1
                    firstLines[batch.index] = batch.lines[0]
                    running += 1
                    group.addTask { (batch.index, await self.send(batch)) }
                }
                guard let (index, result) = try await group.next() else { break }
                running -= 1
                switch result {
                case .success(let counts):
                    summary.imported += counts.imported
                    summary.created += counts.created
                    firstLines[index] = nil
                case .failure(let refusal):
                    if failure == nil || index < failure!.index { failure = (index, refusal.message) }
                }
                if ContinuousClock.now - lastProgress >= progressEvery {
                    lastProgress = ContinuousClock.now
                    let seconds = Self.seconds(ContinuousClock.now - began)
                    io.write(
                        "  \(summary.imported.formatted()) of \(total.formatted()) devices "
                            + "(\(Int(Double(summary.imported) / max(seconds, 0.001)).formatted()) a second)\n")
                }
            }
        }
        guard let failure else { return summary }
        // A batch not imported keeps its first line here (the failed one among them).
        let restart = firstLines.values.min() ?? file.firstLine
        let done =
            restart > file.firstLine
            ? "lines \(file.firstLine) to \(restart - 1) are imported (\(summary.imported.formatted()) devices)"
            : "nothing was imported"
        throw CommandFailure(
            "\(failure.message); \(done)",
            next:
                "fix what is named, then run the same command with --from-line \(restart) (a device imported twice is "
                + "the same registration)")
    }

    /// The next batch: up to ``batchSize`` registrations and ``maximumBodyBytes``; `nil` after the last line.
    private func nextBatch(_ entries: DeviceImportFile.Entries, index: Int) throws -> Batch? {
        var lines: [Int] = []
        var body = Data(#"{"devices":["#.utf8)
        body.reserveCapacity(min(Self.maximumBodyBytes, batchSize * 80))
        while lines.count < batchSize, body.count < Self.maximumBodyBytes - DeviceImportFile.maximumLineLength - 2,
            let result = try entries.next()
        {
            // The file was checked: a line that now fails was changed since (a problem here stops the import).
            let entry = try result.get()
            if !lines.isEmpty { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: entry.json)
            lines.append(entry.line)
        }
        guard !lines.isEmpty else { return nil }
        body.append(contentsOf: Array("]}".utf8))
        return Batch(index: index, lines: lines, body: body)
    }

    /// Sends one batch until the provider takes it, refuses it, or ``patience`` runs out.
    private func send(_ batch: Batch) async -> Result<(imported: Int, created: Int), Refusal> {
        let range = "lines \(batch.lines[0]) to \(batch.lines[batch.lines.count - 1])"
        guard let url = URL(string: call.base + "/v1/devices/import?app=\(DevicesCommand.escape(appID))") else {
            return .failure(Refusal(message: "\(call.base) is not a URL"))
        }
        let deadline = ContinuousClock.now + patience
        var wait: Duration = .seconds(1)
        while true {
            let problem: String
            do {
                let answer = try await call.client.send(.POST, url, body: batch.body, bearer: call.token)
                let json = try? JSONValue(parsing: answer.body)
                switch answer.status {
                case 200:
                    return .success(
                        (
                            json?["imported"]?.number?.intValue ?? batch.lines.count,
                            json?["created"]?.number?.intValue ?? 0
                        ))
                case 429, 500, 502, 503, 504:
                    problem = "the provider answered \(answer.status)" + (Self.message(json).map { ": \($0)" } ?? "")
                default:
                    return .failure(Refusal(message: Self.refusal(answer.status, json, batch: batch, range: range)))
                }
            } catch is CancellationError {
                return .failure(Refusal(message: "the import was stopped before \(range) were sent"))
            } catch {
                problem = "cannot reach \(call.base): \(error)"
            }
            guard ContinuousClock.now + wait < deadline else {
                return .failure(
                    Refusal(
                        message: "\(problem) — for \(Int(Self.seconds(patience))) s, so \(range) were not imported"))
            }
            io.writeError("\(problem); sending \(range) again in \(Int(Self.seconds(wait))) s\n")
            do { try await Task.sleep(for: wait) } catch {
                return .failure(Refusal(message: "the import was stopped before \(range) were sent"))
            }
            wait = min(wait * 2, .seconds(15))
        }
    }

    /// A refused batch explained: the line of the registration the provider names, else the batch's lines.
    private static func refusal(_ status: Int, _ json: JSONValue?, batch: Batch, range: String) -> String {
        let message = message(json) ?? "(no message)"
        if let field = json?["error"]?["field"]?.string, field.hasPrefix("devices["),
            let close = field.firstIndex(of: "]"),
            let index = Int(field[field.index(field.startIndex, offsetBy: 8)..<close]),
            batch.lines.indices.contains(index)
        {
            let rest = field[field.index(after: close)...].drop { $0 == "." }
            return "the provider refused line \(batch.lines[index]) (\(status)): "
                + (rest.isEmpty ? "" : "\(rest): ") + message
        }
        return "the provider refused \(range) (\(status)): "
            + (json?["error"]?["field"]?.string.map { "\($0): " } ?? "") + message
    }

    private static func message(_ json: JSONValue?) -> String? {
        json?["error"]?["message"]?.string ?? json?["error"]?.string
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
