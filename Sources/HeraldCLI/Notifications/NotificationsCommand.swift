import APNSCore
import ArgumentParser
import Foundation
import NIOHTTP1

/// `herald notifications`: a notification's whole life at a provider: create, list, show, watch, cancel, change,
/// resend.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Create, list, show, watch, cancel, change and resend the provider's notifications.",
        discussion: """
            `herald notifications create --all --title Hello --watch` sends to every active device of the app and \
            shows its progress until every delivery has APNs' answer, then the funnel (delivered, shown, opened).
            """,
        subcommands: [Create.self, List.self, Show.self, Watch.self, Cancel.self, Change.self, Resend.self])

    /// What every subcommand shares: the provider, the app, and how to print.
    struct Common: ParsableArguments {
        @OptionGroup var services: ServiceOptions

        @Option(help: "The app's ID (default: the provider's only app).")
        var app: String?

        @Flag(help: "Print the provider's JSON.")
        var json = false

        /// Runs `body` with a call to the provider and the app's ID, then closes the client.
        func run(_ body: (ServiceCall, String) async throws -> Void) async throws {
            try await services.withProvider { call in
                try await body(call, try await DevicesCommand.appID(app, call: call))
            }
        }

        /// Prints `value` as JSON when --json, else `text`.
        func print(_ value: JSONValue, _ text: @autoclosure () -> String) {
            let io = CommandIO.current.terminalSafe
            io.write(json ? String(decoding: value.encoded(), as: UTF8.self) + "\n" : text())
        }
    }

    /// The path of notification `id` (and what follows it) for app `app`.
    static func path(_ id: String, _ suffix: String = "", app: String) -> String {
        "/v1/notifications/\(DevicesCommand.escape(id))\(suffix)?app=\(DevicesCommand.escape(app))"
    }

    /// `herald notifications list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The app's latest notifications, newest first.")

        @OptionGroup var common: Common

        @Option(help: "The most notifications listed (1 to 500).")
        var limit = 20

        func run() async throws {
            guard (1...500).contains(limit) else { throw UsageError("--limit is 1 to 500; got \(limit)") }
            try await common.run { call, app in
                let list = try await call.get("/v1/notifications?app=\(DevicesCommand.escape(app))&limit=\(limit)")
                let lines = (list.array ?? []).map(NotificationProgress.line)
                common.print(list, lines.joined() + "\(lines.count) notification(s) of app \(app)\n")
            }
        }
    }

    /// `herald notifications show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One notification: its state and its funnel.")

        @OptionGroup var common: Common

        @Argument(help: "The notification's ID.")
        var id: String

        func run() async throws {
            try await common.run { call, app in
                let report = try await call.get(NotificationsCommand.path(id, app: app))
                common.print(report, NotificationProgress.line(report) + NotificationProgress.funnel(report))
            }
        }
    }

    /// `herald notifications watch`.
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a notification's progress until every delivery has APNs' answer, then its funnel.")

        @OptionGroup var common: Common

        @Argument(help: "The notification's ID.")
        var id: String

        @Option(help: "Give up watching after this many seconds (the notification goes on).")
        var timeout: Double = 3600

        func run() async throws {
            try await common.run { call, app in
                try await NotificationProgress.watch(id, app: app, call: call, common: common, timeout: timeout)
            }
        }
    }

    /// `herald notifications cancel`.
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a notification: what is still queued is never sent (deliveries in flight finish).")

        @OptionGroup var common: Common

        @Argument(help: "The notification's ID.")
        var id: String

        func run() async throws {
            try await common.run { call, app in
                let answer = try await call.call(.DELETE, NotificationsCommand.path(id, app: app))
                common.print(
                    answer,
                    "cancelled \(id): \(answer["cancelled"]?.number?.intValue ?? 0) queued deliveries never sent, "
                        + "\(answer["inFlight"]?.number?.intValue ?? 0) in flight finish\n")
            }
        }
    }

    /// `herald notifications resend`.
    struct Resend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send again the deliveries the provider gave up on (APNs unreachable, 5xx, 429 ...).")

        @OptionGroup var common: Common

        @Argument(help: "The notification's ID.")
        var id: String

        @Option(
            help: "Only the deliveries that gave up for this reason (default: every reason the provider gives up for).")
        var reason: String?

        func run() async throws {
            let body: JSONValue = .object(JSONObject(reason.map { [("reason", .string($0))] } ?? []))
            try await common.run { call, app in
                let answer = try await call.call(.POST, NotificationsCommand.path(id, "/resend", app: app), body: body)
                common.print(
                    answer, "resent \(answer["resent"]?.number?.intValue ?? 0) deliveries of \(id)\n")
            }
        }
    }
}
