import CoreLocation
import DeviceSimulator
import Foundation
import UserNotifications

/// The interactive terminal of `herald device`: a person lists, expands, acts on, dismisses and clears
/// notifications, and moves the device for location triggers.
struct DeviceTerminal {
    let device: SimulatedDevice
    let io: CommandIO
    /// The person's lines: standard input's unless a test gives its own.
    var input: @Sendable () -> AsyncStream<String> = DeviceTerminal.standardInput

    static let help = """
        list                      delivered notifications, newest first, numbered
        show N                    one notification expanded: content, attachments, actions
        open N                    tap it (the default action)
        act N ACTION [TEXT...]    pick one of its actions; TEXT answers a text-input action
        dismiss N                 swipe it away
        clear                     clear Notification Center
        location LAT LON          move the device (location triggers)
        quit                      stop the device
        N is the number from 'list' or a notification's id.
        """

    /// Reads commands until `quit`, and returns then; when the input ends first, the device goes on until the task
    /// is cancelled (the command's group shuts down).
    ///
    /// - Returns: whether it ended for `quit` (`false` when it was cancelled).
    func run() async -> Bool {
        guard await readCommands() == .inputEnded else { return true }
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        return false
    }

    /// Why the terminal stopped reading.
    enum Ending { case quit, inputEnded }

    private func readCommands() async -> Ending {
        var listed: [NotificationSnapshot] = []
        for await line in input() {
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let command = words.first else { continue }
            do throws(DeviceError) {
                switch command {
                case "help", "?": io.write(Self.help + "\n" + Self.activityHelp + "\n")
                case "activities", "activity": try await activityCommand(words)
                case "list", "ls":
                    listed = await device.notifications()
                    io.write(listed.isEmpty ? "no notifications\n" : Self.render(list: listed))
                case "show":
                    io.write(Self.render(detail: try await device.expand(try await id(words, &listed))))
                case "open": try await respond(try await id(words, &listed), "default", nil)
                case "dismiss": try await respond(try await id(words, &listed), "dismiss", nil)
                case "act":
                    guard words.count >= 3 else { throw DeviceError("act N ACTION [TEXT...]") }
                    let text = words.count > 3 ? words[3...].joined(separator: " ") : nil
                    try await respond(try await id(words, &listed), words[2], text)
                case "clear":
                    device.clear()
                    io.write("cleared\n")
                case "location":
                    guard words.count == 3, let latitude = Double(words[1]), let longitude = Double(words[2]) else {
                        throw DeviceError("location LAT LON, for example: location 39.9 116.4")
                    }
                    await device.updateLocation(CLLocationCoordinate2D(latitude: latitude, longitude: longitude))
                case "quit", "exit": return .quit
                default: throw DeviceError("unknown command '\(command)'; type 'help'")
                }
            } catch {
                io.writeError("error: \(error.message)\n")
            }
        }
        return .inputEnded
    }

    private func respond(_ id: String, _ action: String, _ text: String?) async throws(DeviceError) {
        let outcome = try await device.respond(to: id, action: action, text: text)
        io.write(
            "\(action): \(outcome.deliveredToApp ? "the app received it" : "the app was not told")"
                + (outcome.dismissed ? ", notification closed" : "") + "\n")
    }

    /// The notification a command names: its id, or its number in the last `list`. A number is refused when
    /// notifications arrived or went since that list, which is shown again, so a person never acts on the wrong one.
    private func id(_ words: [String], _ listed: inout [NotificationSnapshot]) async throws(DeviceError) -> String {
        guard words.count >= 2 else { throw DeviceError("\(words[0]) needs a notification: N from 'list', or an id") }
        guard let number = Int(words[1]) else { return words[1] }
        let current = await device.notifications()
        guard current.map(\.id) == listed.map(\.id) else {
            listed = current
            guard !current.isEmpty else { throw DeviceError("no notifications now") }
            io.write(Self.render(list: current))
            throw DeviceError(
                "the list changed since it was last shown; here it is now: say '\(words[0])' again with its number")
        }
        guard listed.indices.contains(number - 1) else {
            throw DeviceError("no notification \(number): the list has \(listed.count)")
        }
        return listed[number - 1].id
    }

    static func render(list: [NotificationSnapshot]) -> String {
        list.enumerated().map { index, item in
            let headline = [item.title, item.subtitle, item.body].filter { !$0.isEmpty }.joined(separator: " — ")
            let media = item.attachments.isEmpty ? "" : " [\(item.attachments.count) attachment(s)]"
            return "\(index + 1). [\(item.bundleID)] \(headline)\(media)  (\(item.id))\n"
        }.joined()
    }

    static func render(detail item: NotificationSnapshot) -> String {
        var lines = [
            "\(item.bundleID) at \(item.date)", "title: \(item.title)", "subtitle: \(item.subtitle)",
            "body: \(item.body)",
        ]
        if let badge = item.badge { lines.append("badge: \(badge)") }
        if !item.categoryIdentifier.isEmpty { lines.append("category: \(item.categoryIdentifier)") }
        if !item.threadIdentifier.isEmpty { lines.append("thread: \(item.threadIdentifier)") }
        for attachment in item.attachments {
            lines.append("attachment \(attachment.identifier) (\(attachment.type)): \(attachment.path)")
        }
        if let view = item.contentExtension {
            lines.append("content extension: \(view.title ?? "") \(view.body ?? "") \(view.imagePath ?? "")")
        }
        for action in item.actions {
            let input = action.textInput ? " (text: \(action.textInputPlaceholder ?? ""))" : ""
            lines.append("action \(action.identifier): \(action.title)\(input)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Standard input's lines, read on a thread of their own so no task blocks.
    static func standardInput() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        return stream
    }
}
