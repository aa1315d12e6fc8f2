import APNSCore
import ArgumentParser
import Foundation
import NIOHTTP1

/// `herald apps`: create, list, show, update, pause, resume and delete the provider's apps, against a running
/// provider (the admin token from this folder, or --provider and --provider-token-file).
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Create, list, show, update, pause, resume and delete the provider's apps.",
        discussion: """
            `herald apps create --bundle-id com.example.app --auth-key TEAMID:KEYID:AuthKey_KEYID.p8` prints the \
            app's API key and publishable key once (the provider keeps only the API key's hash).
            """,
        subcommands: [
            Create.self, List.self, Show.self, Update.self, Pause.self, Resume.self, Delete.self, AppKeysCommand.self,
        ]
    )

    /// What every subcommand shares: where the provider is, and how to print.
    struct Common: ParsableArguments {
        @OptionGroup var services: ServiceOptions

        @Flag(help: "Print the provider's JSON.")
        var json = false

        /// Runs `body` with a call to the provider, then closes the client.
        func run(_ body: (ServiceCall) async throws -> Void) async throws {
            try await services.withProvider(body)
        }

        /// Prints `value` as JSON when --json, else `text`.
        func print(_ value: JSONValue, _ text: @autoclosure () -> String) {
            let io = CommandIO.current.terminalSafe
            io.write(json ? String(decoding: value.encoded(), as: UTF8.self) + "\n" : text())
        }
    }

    /// The fields `create` and `update` share.
    struct Settings: ParsableArguments {
        @Option(help: "A name for people.")
        var name: String?

        @Option(help: "development or production: which APNs environment its device tokens belong to.")
        var environment: String?

        @Option(help: "Where notifications go: production, sandbox, or an https:// URL such as the local APNs'.")
        var endpoint: String?

        @Option(name: .customLong("ca"), help: "A PEM CA file to trust for --endpoint (the local APNs' ca.pem).")
        var caFile: String?

        @Option(help: "The app's own server, which receives every user response (https://).")
        var webhook: String?

        @Option(
            name: .customLong("webhook-batch"),
            help: "Events one webhook POST may carry (1-64; 1: each alone, more: {\"events\": [...]}).")
        var webhookBatch: Int?

        @Option(name: .customLong("rate-limit"), help: "At most this many notifications per second; 0: no limit.")
        var rateLimit: Int?

        @Option(name: .customLong("retention-days"), help: "Days its delivery rows are kept (1-3650).")
        var retentionDays: Int?

        @Option(name: .customLong("trace-retention-days"), help: "Days its devices' receipts are kept (1-3650).")
        var traceRetentionDays: Int?

        @Option(name: .customLong("response-retention-days"), help: "Days its users' responses are kept (1-3650).")
        var responseRetentionDays: Int?

        @OptionGroup var sendingRules: AppSendingRules

        @OptionGroup var credentials: AppCredentialOptions

        @Flag(
            name: .customLong("no-check"),
            help: "Do not check the credentials with APNs before saying done (offline, or APNs not reachable yet).")
        var noCheck = false

        /// The API body's members these options set.
        func members() throws -> [(key: String, value: JSONValue)] {
            var members: [(key: String, value: JSONValue)] = []
            if let name { members.append(("name", .string(name))) }
            if let environment { members.append(("environment", .string(environment))) }
            if let endpoint { members.append(("endpoint", .string(endpoint))) }
            if let caFile {
                let pem = String(decoding: try OptionFile.read(caFile, option: "--ca"), as: UTF8.self)
                members.append(("caPEM", .string(pem)))
            }
            if let webhook { members.append(("webhookURL", .string(webhook))) }
            if let webhookBatch { members.append(("webhookBatch", .number(JSONNumber(webhookBatch)))) }
            if let rateLimit { members.append(("rateLimit", .number(JSONNumber(rateLimit)))) }
            let retention: [(key: String, value: JSONValue)] = [
                ("deliveries", retentionDays), ("traces", traceRetentionDays), ("responses", responseRetentionDays),
            ].compactMap { kind, days in days.map { (kind, .number(JSONNumber($0))) } }
            if !retention.isEmpty { members.append(("retention", .object(JSONObject(retention)))) }
            members += try sendingRules.members()
            if let authentication = try credentials.authentication() {
                members.append(("authentication", authentication))
            }
            return members
        }
    }

    /// One line about an app.
    static func line(_ app: JSONValue) -> String {
        let paused = app["pausedAt"]?.string.map { "  PAUSED since \($0)" } ?? ""
        let auth = app["authentication"]?["kind"]?.string ?? "?"
        return "\(app["id"]?.string ?? "?")  \(app["bundleID"]?.string ?? "")  \(app["environment"]?.string ?? "")  "
            + "\(auth)  \(app["endpoint"]?.string ?? "")\(paused)\n"
    }

    /// Everything `show` prints about an app.
    static func details(_ app: JSONValue) -> String {
        func days(_ field: String) -> String {
            app["retention"]?[field]?.number?.intValue.map(String.init) ?? "-"
        }
        let key = app["publishableKey"]?.string ?? "?"
        let rate = app["rateLimit"]?.number?.intValue ?? 0
        let webhook = app["webhookURL"]?.string ?? "none"
        let batch = app["webhookBatch"]?.number?.intValue ?? 1
        let quiet = app["quietHours"].flatMap { window in
            window["start"]?.string.map {
                "\($0)-\(window["end"]?.string ?? "?") (\(window["action"]?.string ?? "wait"))"
            }
        }
        let caps = (app["frequencyCaps"]?.array ?? []).map { cap in
            let window = cap["window"]?.number?.intValue.map { "\($0) s" } ?? "?"
            return "\(cap["category"]?.string ?? "?") \(cap["limit"]?.number?.intValue ?? 0) per \(window) per "
                + (cap["per"]?.string ?? "user")
        }
        return line(app) + "  publishable key \(key)\n  rate limit \(rate)/s; webhook \(webhook) (\(batch) a POST)\n"
            + "  quiet hours \(quiet ?? "none"); frequency caps \(caps.isEmpty ? "none" : caps.joined(separator: ", "))\n"
            + "  retention (days; - is the provider's default): deliveries \(days("deliveries")), traces "
            + "\(days("traces")), responses \(days("responses"))\n"
    }

    /// `herald apps create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an app; prints its API key and publishable key once.")

        @OptionGroup var common: Common

        @Option(name: .customLong("bundle-id"), help: "The app's bundle ID (its apns-topic).")
        var bundleID: String

        @OptionGroup var settings: Settings

        func run() async throws {
            guard settings.credentials.authKey != nil || settings.credentials.cert != nil else {
                throw UsageError(
                    "give the app's APNs credentials: --auth-key TEAMID:KEYID:AuthKey_KEYID.p8 or --cert FILE")
            }
            let body = JSONValue.object(JSONObject([("bundleID", .string(bundleID))] + (try settings.members())))
            try await common.run { call in
                let created = try await call.call(.POST, "/v1/apps", body: body)
                let app = created["app"] ?? .null
                let id = app["id"]?.string ?? "?"
                let done =
                    "app \(id) created for \(bundleID)\n"
                    + "  API key (secret; shown once, keep it on your server): \(created["apiKey"]?.string ?? "?")\n"
                    + "  publishable key (for the app, HeraldKit): \(app["publishableKey"]?.string ?? "?")\n"
                guard !settings.noCheck else { return common.print(created, done) }
                try await AppCredentialCheck.run(call, appID: id, done: done, common: common, answer: created)
            }
        }
    }

    /// `herald apps list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every app: id, bundle ID, environment, state.")

        @OptionGroup var common: Common

        func run() async throws {
            try await common.run { call in
                let apps = try await call.get("/v1/apps")
                let list = apps.array ?? []
                common.print(apps, list.map(AppsCommand.line).joined() + "\(list.count) app(s)\n")
            }
        }
    }

    /// One app's subcommand: where the provider is, the app's ID, and the call to its resource.
    struct OneApp: ParsableArguments {
        @OptionGroup var common: Common

        @Argument(help: "The app's ID.")
        var id: String

        /// Sends `method` to the app's resource (`suffix` after it) and prints the answer as `text` says it.
        func call(
            _ method: HTTPMethod, _ suffix: String = "", body: JSONValue? = nil, text: (JSONValue) -> String
        ) async throws {
            try await common.run { call in
                let answer = try await call.call(method, "/v1/apps/\(DevicesCommand.escape(id))" + suffix, body: body)
                common.print(answer, text(answer))
            }
        }
    }

    /// `herald apps show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One app, all it shows (never its secrets).")

        @OptionGroup var app: OneApp

        func run() async throws {
            try await app.call(.GET, text: AppsCommand.details)
        }
    }

    /// `herald apps update`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an app: credentials (--auth-key, --cert), endpoint, webhook, limits, retention.")

        @OptionGroup var app: OneApp

        @OptionGroup var settings: Settings

        func run() async throws {
            let members = try settings.members()
            guard !members.isEmpty else { throw UsageError("say what to change: --auth-key, --name, --webhook, ...") }
            let changesCredentials = members.contains { $0.key == "authentication" }
            guard changesCredentials, !settings.noCheck else {
                return try await app.call(.PATCH, body: .object(JSONObject(members))) {
                    "updated: " + AppsCommand.line($0)
                }
            }
            try await app.common.run { call in
                let updated = try await call.call(
                    .PATCH, "/v1/apps/\(DevicesCommand.escape(app.id))", body: .object(JSONObject(members)))
                try await AppCredentialCheck.run(
                    call, appID: app.id, done: "updated: " + AppsCommand.line(updated), common: app.common,
                    answer: updated)
            }
        }
    }

    /// `herald apps pause`.
    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop an app's sending: its notifications wait in the queue, spending no attempt.")

        @OptionGroup var app: OneApp

        func run() async throws {
            try await app.call(.POST, "/pause") { answer in
                "paused \(app.id): \(answer["deliveries"]?.number?.intValue ?? 0) queued deliveries wait; "
                    + "`herald apps resume \(app.id)` sends them\n"
            }
        }
    }

    /// `herald apps resume`.
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send again for a paused app.")

        @OptionGroup var app: OneApp

        func run() async throws {
            try await app.call(.POST, "/resume") { answer in
                "resumed \(app.id): \(answer["deliveries"]?.number?.intValue ?? 0) deliveries due now\n"
            }
        }
    }

    /// `herald apps delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an app with its devices, notifications and history (needs --yes).")

        @OptionGroup var app: OneApp

        @Flag(help: "Really delete it: nothing of the app can be brought back.")
        var yes = false

        func run() async throws {
            guard yes else {
                throw UsageError(
                    "deleting app \(app.id) removes its devices, notifications and history for good; add --yes (or "
                        + "`herald apps pause \(app.id)` to stop its sending)")
            }
            try await app.call(.DELETE) { deleted in
                let count = { (field: String) in deleted[field]?.number?.intValue ?? 0 }
                return "deleted \(app.id): \(count("devices")) devices, \(count("notifications")) notifications, "
                    + "\(count("deliveries")) deliveries\n"
            }
        }
    }
}
