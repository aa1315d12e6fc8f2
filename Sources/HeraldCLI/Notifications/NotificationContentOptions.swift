import APNSCore
import ArgumentParser
import Foundation
import NIOHTTP1

/// What a notification says and how it is sent, as `herald notifications create` and `change` take it: the API's
/// `content` fields (or a raw `payload` file) and its headers.
struct NotificationContentOptions: ParsableArguments {
    @Option(help: "The alert's title.")
    var title: String?

    @Option(help: "The alert's subtitle.")
    var subtitle: String?

    @Option(help: "The alert's body.")
    var body: String?

    @Option(help: "The app icon's badge number.")
    var badge: Int?

    @Option(help: "The sound: default, or a sound file of the app.")
    var sound: String?

    @Option(help: "The category (its actions, from the app's categories).")
    var category: String?

    @Option(name: .customLong("thread-id"), help: "Groups notifications in Notification Center.")
    var threadID: String?

    @Option(help: "Custom data: a JSON object beside aps (--data '{\"matchID\": 42}').")
    var data: String?

    @Option(name: .customLong("media-url"), help: "An image, audio or video the app's service extension downloads.")
    var mediaURL: String?

    @Option(
        name: .customLong("payload"), help: "A file holding a whole APNs payload, sent as it is (instead of the above)."
    )
    var payloadFile: String?

    @Option(name: .customLong("push-type"), help: "alert (default), background, ...")
    var pushType: String?

    @Option(help: "10 (now) or 5 (when the device saves power).")
    var priority: Int?

    @Option(help: "UNIX seconds after which APNs stops trying; 0: now or never.")
    var expiration: Int?

    @Option(name: .customLong("collapse-id"), help: "A later notification with the same ID replaces this one.")
    var collapseID: String?

    @Option(name: .customLong("send-at"), help: "When to send it (ISO 8601, such as 2026-12-01T07:00:00Z).")
    var sendAt: String?

    @Option(name: .customLong("daily-at"), help: "Every day at this time (HH:MM) in each device's own time zone.")
    var dailyAt: String?

    /// The API body's members these options set.
    ///
    /// - Throws: ``UsageError`` naming the option for a file that cannot be read or JSON that does not parse.
    func members() throws -> [(key: String, value: JSONValue)] {
        var content: [(key: String, value: JSONValue)] = []
        let texts =
            [("title", title), ("subtitle", subtitle), ("body", body), ("sound", sound)]
            + [("category", category), ("threadID", threadID), ("mediaURL", mediaURL)]
        for (key, value) in texts { if let value { content.append((key, .string(value))) } }
        if let badge { content.append(("badge", .number(JSONNumber(badge)))) }
        if let data {
            guard let parsed = try? JSONValue(parsing: Data(data.utf8)), parsed.object != nil else {
                throw UsageError("--data is a JSON object, such as '{\"matchID\": 42}'; got \(data)")
            }
            content.append(("data", parsed))
        }
        var members: [(key: String, value: JSONValue)] = []
        if let payloadFile {
            guard content.isEmpty else { throw UsageError("give --payload FILE or the content options, not both") }
            let text = String(decoding: try OptionFile.read(payloadFile, option: "--payload"), as: UTF8.self)
            guard let payload = try? JSONValue(parsing: Data(text.utf8)) else {
                throw UsageError("--payload: \(payloadFile) is not JSON (herald payload lint FILE says where)")
            }
            members.append(("payload", payload))
        } else if !content.isEmpty {
            members.append(("content", .object(JSONObject(content))))
        }
        if let pushType { members.append(("pushType", .string(pushType))) }
        if let priority { members.append(("priority", .number(JSONNumber(priority)))) }
        if let expiration { members.append(("expiration", .number(JSONNumber(expiration)))) }
        if let collapseID { members.append(("collapseID", .string(collapseID))) }
        if let sendAt { members.append(("sendAt", .string(sendAt))) }
        if let dailyAt { members.append(("dailyAt", .string(dailyAt))) }
        return members
    }
}

extension NotificationsCommand {
    /// `herald notifications create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a notification for devices of the app: a token, a user, a tag expression, or all.")

        @OptionGroup var common: Common

        @Option(help: "A device token (repeat for several).")
        var token: [String] = []

        @Option(help: "Every active device of this user.")
        var user: String?

        @Option(help: "Devices whose tags match this expression (sports && !news).")
        var tags: String?

        @Flag(help: "Every active device of the app.")
        var all = false

        @OptionGroup var content: NotificationContentOptions

        @Flag(help: "Then watch it until every delivery has APNs' answer.")
        var watch = false

        func target() throws -> JSONValue {
            var targets: [(key: String, value: JSONValue)] = []
            if token.count == 1 { targets.append(("token", .string(token[0]))) }
            if token.count > 1 { targets.append(("tokens", .array(token.map { .string($0) }))) }
            if let user { targets.append(("user", .string(user))) }
            if let tags { targets.append(("tags", .string(tags))) }
            if all { targets.append(("all", .bool(true))) }
            guard targets.count == 1 else {
                throw UsageError("say who gets it, once: --token T (repeatable), --user U, --tags EXPR or --all")
            }
            return .object(JSONObject(targets))
        }

        func run() async throws {
            let members = try content.members()
            guard members.contains(where: { $0.key == "content" || $0.key == "payload" }) else {
                throw UsageError("say what it says: --title, --body (and more), or --payload FILE")
            }
            let body: JSONValue = .object(JSONObject([("target", try target())] + members))
            try await common.run { call, app in
                let created = try await call.call(
                    .POST, "/v1/notifications?app=\(DevicesCommand.escape(app))", body: body)
                let id = created["id"]?.string ?? "?"
                let warning = created["warning"]?.string.map { "  warning: \($0)\n" } ?? ""
                common.print(created, "created " + NotificationProgress.line(created) + warning)
                if watch, !common.json {
                    try await NotificationProgress.watch(id, app: app, call: call, common: common, timeout: 3600)
                }
            }
        }
    }

    /// `herald notifications change`.
    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a notification that has sent nothing yet: its content, headers or time.")

        @OptionGroup var common: Common

        @Argument(help: "The notification's ID.")
        var id: String

        @OptionGroup var content: NotificationContentOptions

        func run() async throws {
            let members = try content.members()
            guard !members.isEmpty else { throw UsageError("say what to change: --title, --send-at, ...") }
            try await common.run { call, app in
                let changed = try await call.call(
                    .PATCH, NotificationsCommand.path(id, app: app), body: .object(JSONObject(members)))
                common.print(changed, "changed " + NotificationProgress.line(changed))
            }
        }
    }
}
