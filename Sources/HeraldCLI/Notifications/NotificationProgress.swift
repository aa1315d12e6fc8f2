import APNSCore
import Foundation

/// A notification's report in words: one line (state, target, counts), the funnel, and a watch that redraws the
/// progress until every delivery has APNs' answer.
enum NotificationProgress {
    /// `ID  STATE  TARGET  answered/targeted (accepted, rejected)`.
    static func line(_ report: JSONValue) -> String {
        let stats = report["stats"] ?? .null
        let (targeted, accepted, rejected) = counts(stats)
        let cancelled = count(stats["cancelled"])
        let extra = cancelled > 0 ? ", \(cancelled) cancelled" : ""
        return "\(report["id"]?.string ?? "?")  \(report["state"]?.string ?? "?")  \(report["target"]?.string ?? "")  "
            + "\(accepted + rejected)/\(targeted) answered (\(accepted) accepted, \(rejected) rejected\(extra))\n"
    }

    /// What became of it after APNs: delivered, shown, opened, acted, replied, and the refusals by reason.
    static func funnel(_ report: JSONValue) -> String {
        let stats = report["stats"] ?? .null
        let (targeted, accepted, _) = counts(stats)
        let actions = (stats["actions"]?.object?.keys ?? []).map { "\($0) \(count(stats["actions"]?[$0]))" }
        var lines = [
            "  targeted   \(targeted)", "  accepted   \(accepted)", "  delivered  \(count(stats["delivered"]))",
            "  shown      \(count(stats["displayed"]))", "  opened     \(count(stats["opened"]))",
            "  dismissed  \(count(stats["dismissed"]))",
        ]
        if !actions.isEmpty { lines.append("  actions    " + actions.joined(separator: ", ")) }
        if count(stats["replies"]) > 0 { lines.append("  replies    \(count(stats["replies"]))") }
        let refusals = (stats["rejected"]?.object?.keys ?? []).map { "\($0) \(count(stats["rejected"]?[$0]))" }
        if !refusals.isEmpty { lines.append("  rejected   " + refusals.joined(separator: ", ")) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Polls notification `id` (about twice a second) and redraws its progress until it is done or cancelled, then
    /// prints its funnel; `timeout` seconds at most.
    static func watch(
        _ id: String, app: String, call: ServiceCall, common: NotificationsCommand.Common, timeout: Double
    )
        async throws
    {
        let io = CommandIO.current.terminalSafe
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while true {
            let report = try await call.get(NotificationsCommand.path(id, app: app))
            let state = report["state"]?.string ?? "?"
            let progress = bar(report)
            if progress != last {
                io.write(progress + "\n")
                last = progress
            }
            if state == "done" || state == "cancelled" {
                common.print(report, funnel(report))
                return
            }
            guard Date() < deadline else {
                throw CommandFailure(
                    "\(id) is still \(state) after \(Int(timeout)) s of watching; it goes on",
                    next: "herald notifications watch \(id) again, or show \(id)")
            }
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    /// `[#######.............]  35%  350/1000 answered, 2 rejected, state sending`.
    static func bar(_ report: JSONValue) -> String {
        let (targeted, accepted, rejected) = counts(report["stats"] ?? .null)
        let answered = accepted + rejected + count(report["stats"]?["cancelled"])
        let share = targeted == 0 ? 1 : Double(answered) / Double(targeted)
        let filled = Int((share * 20).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "] "
            + String(format: "%3d%%", Int(share * 100)) + "  \(answered)/\(targeted) answered, \(rejected) rejected, "
            + "state \(report["state"]?.string ?? "?")"
    }

    private static func counts(_ stats: JSONValue) -> (targeted: Int, accepted: Int, rejected: Int) {
        let rejected = (stats["rejected"]?.object?.keys ?? []).reduce(0) { $0 + count(stats["rejected"]?[$1]) }
        return (count(stats["targeted"]), count(stats["accepted"]), rejected)
    }

    private static func count(_ value: JSONValue?) -> Int { value?.number?.intValue ?? 0 }
}
