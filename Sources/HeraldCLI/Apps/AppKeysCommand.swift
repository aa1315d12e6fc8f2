import APNSCore
import ArgumentParser
import NIOHTTP1

/// `herald apps keys`: an app's API keys, made with every scope or restricted to some.
struct AppKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "An app's API keys: create (restricted with --scope), list, delete.",
        subcommands: [Create.self, List.self, Delete.self])

    /// One line about a key.
    static func line(_ key: JSONValue) -> String {
        let scopes = (key["scopes"]?.array ?? []).compactMap(\.string).joined(separator: ",")
        let restricted = key["restricted"] == .bool(true) ? scopes : "every scope"
        return "\(key["id"]?.string ?? "?")  \(restricted)  created \(key["createdAt"]?.string ?? "?")\n"
    }

    /// `herald apps keys create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an API key (printed once); --scope restricts it (send, read, devices, apps, webhooks).")

        @OptionGroup var app: AppsCommand.OneApp

        @Option(
            name: .customLong("scope"),
            help: "A job the key may do, repeatable: send, read, devices, apps, webhooks (default: every one).")
        var scopes: [String] = []

        func run() async throws {
            let body: JSONValue? =
                scopes.isEmpty ? nil : .object(JSONObject([("scopes", .array(scopes.map(JSONValue.string)))]))
            try await app.call(.POST, "/keys", body: body) { key in
                "API key \(key["apiKey"]?.string ?? "?") (shown once; keep it secret)\n" + AppKeysCommand.line(key)
            }
        }
    }

    /// `herald apps keys list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The app's API keys: IDs and scopes, never the keys.")

        @OptionGroup var app: AppsCommand.OneApp

        func run() async throws {
            try await app.call(.GET, "/keys") { keys in (keys.array ?? []).map(AppKeysCommand.line).joined() }
        }
    }

    /// `herald apps keys delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke one of the app's API keys at once.")

        @OptionGroup var app: AppsCommand.OneApp

        @Argument(help: "The key's ID (key_…), as `herald apps keys list` shows it.")
        var keyID: String

        func run() async throws {
            try await app.call(.DELETE, "/keys/\(DevicesCommand.escape(keyID))") { _ in "deleted \(keyID)\n" }
        }
    }
}
