import APNSCore
import ArgumentParser
import Foundation
import HeraldConsole

/// `herald log`: the local APNs' delivery log (received, rejected, stored, delivered, ...), one line per event, and
/// for one `apns-id` the provider's side too.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the local APNs' delivery log; --follow keeps printing; --apns-id shows one push end to end.")

    @OptionGroup var services: ServiceOptions

    @Flag(help: "Keep printing new events as they happen (Ctrl-C stops).")
    var follow = false

    @Option(name: .customLong("apns-id"), help: "One notification: the gateway's events and the provider's delivery.")
    var apnsID: String?

    @Option(help: "How many of the latest notifications to show first (1 to 1000).")
    var limit = 20

    func run() async throws {
        guard (1...1000).contains(limit) else { throw UsageError("--limit is 1 to 1000; got \(limit)") }
        let (url, token, caPEM) = try services.gateway()
        let client = try ConsoleHTTPClient(caPEM: caPEM)
        defer { Task { await client.shutdown() } }
        let gateway = ServiceCall(client: client, base: url, token: token)
        if let apnsID {
            try await show(apnsID, gateway: gateway, client: client)
            return
        }
        var printer = LogPrinter(io: CommandIO.current.terminalSafe)
        var answer = try await gateway.get("/admin/deliveries?limit=\(limit)")
        printer.print(answer)
        guard follow else { return }
        while !Task.isCancelled {
            try await Task.sleep(for: .milliseconds(300))
            answer = try await gateway.get("/admin/deliveries?after=\(printer.watchFrom)&limit=1000")
            printer.print(answer)
        }
    }

    /// One notification: the gateway's events, then the provider's delivery when the provider sent it.
    private func show(_ apnsID: String, gateway: ServiceCall, client: ConsoleHTTPClient) async throws {
        let io = CommandIO.current.terminalSafe
        guard UUID(uuidString: apnsID) != nil else { throw UsageError("--apns-id is a UUID; got '\(apnsID)'") }
        var printer = LogPrinter(io: io)
        printer.print(
            .object(JSONObject([("entries", .array([try await gateway.get("/admin/deliveries?apns-id=\(apnsID)")]))])))
        guard let (url, token) = try? services.provider() else { return }
        let provider = ServiceCall(client: client, base: url, token: token)
        guard let apps = try? await provider.get("/v1/apps").array else { return }
        for app in apps {
            guard let id = app["id"]?.string,
                let trace = try? await provider.get("/v1/deliveries/\(apnsID)?app=\(id)")
            else { continue }
            io.write(
                "provider: notification \(trace["notificationID"]?.string ?? "?") of app \(id), delivery "
                    + "\(trace["state"]?.string ?? "?") after \(trace["attempts"]?.number?.description ?? "?") attempt(s)"
                    + (trace["reason"]?.string.map { ", \($0)" } ?? "")
                    + (trace["action"]?.string.map { "; action \($0)" } ?? "")
                    + (trace["reply"]?.string.map { " \"\($0)\"" } ?? "") + "\n")
            return
        }
        io.write("provider: no app of the provider sent this apns-id (a push straight to APNs)\n")
    }
}

/// Prints the delivery log's entries one line per event, each event once, as later polls add events to entries.
struct LogPrinter {
    let io: CommandIO
    /// Events printed so far, by `apns-id`, for the entries still watched.
    private var printed: [String: Int] = [:]
    /// The sequence numbers of the entries watched, oldest first.
    private var watched: [(sequence: Int, apnsID: String)] = []
    private var last = -1

    /// Entries stay watched for later events while they are among the newest this many.
    static let window = 500

    init(io: CommandIO) {
        self.io = io
    }

    /// The cursor to poll from: the oldest entry still watched.
    var watchFrom: Int { (watched.first?.sequence ?? last.saturatingSuccessor) - 1 }

    mutating func print(_ answer: JSONValue) {
        for entry in answer["entries"]?.array ?? [] {
            guard let id = entry["apns-id"]?.string else { continue }
            let events = entry["events"]?.array ?? []
            let done = printed[id] ?? 0
            for event in events.dropFirst(done) { io.write(Self.line(id, entry, event)) }
            if let sequence = entry["sequence"]?.number?.intValue, sequence > last {
                watched.append((sequence, id))
                last = sequence
            }
            printed[id] = events.count
        }
        if watched.count > Self.window {
            for (_, id) in watched.prefix(watched.count - Self.window) { printed[id] = nil }
            watched.removeFirst(watched.count - Self.window)
        }
    }

    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).time(
        includingFractionalSeconds: true)

    private static func line(_ id: String, _ entry: JSONValue, _ event: JSONValue) -> String {
        let milliseconds = event["time"]?.number?.doubleValue ?? 0
        let when = Date(timeIntervalSince1970: milliseconds / 1000).formatted(time)
        let token = entry["token"]?.string.map { String($0.prefix(8)) + "…" } ?? "-"
        let detail = event["detail"]?.string.map { ": \($0)" } ?? ""
        return "\(when)  \(id)  \(token)  \(event["event"]?.string ?? "?")\(detail)\n"
    }
}
