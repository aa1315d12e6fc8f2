import APNSCore
import ArgumentParser

/// The options of `herald apps create` and `update` for when and how often an app's alerts may reach a person: its
/// quiet hours and its frequency caps (docs/api.md). The provider checks the values and names what is wrong.
struct AppSendingRules: ParsableArguments {
    @Option(
        name: .customLong("quiet-hours"),
        help: ArgumentHelp(
            "A quiet window in each device's time zone, START-END (22:00-08:00); add /drop to drop what falls in it "
                + "(else it waits for the end); none removes it.",
            valueName: "START-END[/drop]"))
    var quietHours: String?

    @Option(
        name: .customLong("frequency-cap"),
        help: ArgumentHelp(
            "At most LIMIT alerts of a capCategory to one user in a window (marketing:3/1d; m, h or d); add :device to "
                + "count each device. Repeat for more caps; they replace the app's. none removes them.",
            valueName: "CATEGORY:LIMIT/WINDOW[:device]"))
    var frequencyCaps: [String] = []

    /// The API body's members these options set.
    func members() throws -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if let quietHours { members.append(("quietHours", try Self.quietWindow(quietHours))) }
        if !frequencyCaps.isEmpty {
            let caps = frequencyCaps == ["none"] ? [] : try frequencyCaps.map(Self.cap)
            members.append(("frequencyCaps", .array(caps)))
        }
        return members
    }

    /// `22:00-08:00[/drop]` as the API's quiet window; `none` as `""` (removed).
    static func quietWindow(_ text: String) throws -> JSONValue {
        if text == "none" { return .string("") }
        let (window, action) = text.hasSuffix("/drop") ? (String(text.dropLast(5)), "drop") : (text, "wait")
        let times = window.split(separator: "-", omittingEmptySubsequences: false)
        guard times.count == 2 else {
            throw ValidationError("--quiet-hours \(text): give START-END, such as 22:00-08:00 (or 22:00-08:00/drop)")
        }
        return .object(
            JSONObject([
                ("start", .string(String(times[0]))), ("end", .string(String(times[1]))), ("action", .string(action)),
            ]))
    }

    /// `marketing:3/1d[:device]` as one of the API's caps.
    static func cap(_ text: String) throws -> JSONValue {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let amount = parts.count > 1 ? parts[1].split(separator: "/", omittingEmptySubsequences: false) : []
        guard (2...3).contains(parts.count), amount.count == 2, let limit = Int(amount[0]),
            parts.count == 2 || parts[2] == "device" || parts[2] == "user"
        else {
            throw ValidationError(
                "--frequency-cap \(text): give CATEGORY:LIMIT/WINDOW, such as marketing:3/1d (or marketing:3/1d:device)"
            )
        }
        let window: JSONValue = Int(amount[1]).map { .number(JSONNumber($0)) } ?? .string(String(amount[1]))
        return .object(
            JSONObject([
                ("category", .string(String(parts[0]))), ("limit", .number(JSONNumber(limit))), ("window", window),
                ("per", .string(parts.count == 3 ? String(parts[2]) : "user")),
            ]))
    }
}
