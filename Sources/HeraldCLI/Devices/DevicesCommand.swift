import APNSCore
import ArgumentParser
import Foundation
import HeraldConsole

/// `herald devices`: the provider's registered device tokens (`list`, the default), and a file of them registered
/// at once (`import`).
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the provider's devices, or import a file of them.",
        subcommands: [List.self, Import.self],
        defaultSubcommand: List.self)

    /// `herald devices list`: token, user, tags and state, filtered by user, tag and state.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the provider's devices: token, user, tags, state (filter by user, tag, active).")

        @OptionGroup var services: ServiceOptions

        @Option(help: "The app's ID (default: the provider's only app).")
        var app: String?

        @Option(help: "Only this user's devices.")
        var user: String?

        @Option(help: "Only devices with this tag.")
        var tag: String?

        @Option(help: "true: only active devices; false: only deactivated ones (with the reason).")
        var active: Bool?

        @Option(help: "The most devices listed (1 to 1000).")
        var limit = 100

        @Flag(help: "Print the provider's JSON.")
        var json = false

        func run() async throws {
            let io = CommandIO.current.terminalSafe
            guard (1...1000).contains(limit) else { throw UsageError("--limit is 1 to 1000; got \(limit)") }
            let (url, token) = try services.provider()
            let client = try ConsoleHTTPClient(caPEM: nil)
            defer { Task { await client.shutdown() } }
            let call = ServiceCall(client: client, base: url, token: token)
            let appID = try await DevicesCommand.appID(app, call: call)
            var query = ["app=\(appID)", "limit=\(limit)"]
            if let user { query.append("user=\(DevicesCommand.escape(user))") }
            if let tag { query.append("tag=\(DevicesCommand.escape(tag))") }
            if let active { query.append("active=\(active)") }
            let devices = try await call.get("/v1/devices?" + query.joined(separator: "&"))
            if json {
                io.write(String(decoding: devices.encoded(), as: UTF8.self) + "\n")
                return
            }
            let list = devices.array ?? []
            guard !list.isEmpty else {
                io.write("no devices match (app \(appID))\n")
                return
            }
            for device in list {
                let state =
                    device["active"] == .bool(false)
                    ? "inactive (\(device["deactivationReason"]?.string ?? "?"))" : "active"
                let tags = device["tags"]?.array?.compactMap(\.string).joined(separator: ",") ?? ""
                io.write(
                    "\(device["token"]?.string ?? "")  \(state)  user \(device["userID"]?.string ?? "-")"
                        + (tags.isEmpty ? "" : "  tags \(tags)") + "\n")
            }
            io.write("\(list.count) device(s)\(list.count == limit ? " (the first \(limit); --limit for more)" : "")\n")
        }
    }

    /// The app meant: the one given, else the provider's only app.
    static func appID(_ given: String?, call: ServiceCall) async throws -> String {
        if let given { return given }
        let apps = try await call.get("/v1/apps").array ?? []
        guard apps.count == 1, let id = apps[0]["id"]?.string else {
            let names = apps.compactMap { app in app["id"]?.string.map { "\($0) (\(app["bundleID"]?.string ?? ""))" } }
            throw UsageError(
                "the provider has \(apps.count) apps; say which with --app ID: \(names.joined(separator: ", "))")
        }
        return id
    }

    /// `text` for a path segment or a query value: RFC 3986's unreserved characters stay as they are (an app ID's `_`
    /// too, so an error that quotes the URL shows it as typed), anything else is percent-encoded.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
