import Foundation
import Hummingbird
import ProviderStorage
import PushProvider

extension ConsoleRoutes {
    /// History's first page as the server renders it, so the page reads before (or without) JavaScript: the apps the
    /// session may see, the one `?app=` names (else the first) chosen, and its latest 25 notifications with their
    /// counts. The page's script then follows the counts live.
    func historyFirstPage(_ request: Request, session: ConsoleSessions.Session) async throws -> HistoryView {
        let apps = try await provider.allApps().filter { self.session(session, mayRead: $0.id) }
        guard !apps.isEmpty else { return HistoryView(apps: [], rows: [], noApp: true) }
        let wanted = request.uri.queryParameters.get("app")
        let app = apps.first { $0.id == wanted } ?? apps[0]
        let reports = try await provider.notifications.reports(appID: app.id, before: nil, limit: 25)
        return HistoryView(
            apps: apps.map { AppChoice(id: $0.id, label: "\($0.name) (\($0.bundleID))", selected: $0.id == app.id) },
            rows: reports.map(Self.historyRow), noApp: false)
    }

    /// One notification as History's row shows it.
    static func historyRow(_ report: NotificationReport) -> HistoryRow {
        let stats = report.stats
        func list(_ counts: [String: Int], empty: String = "") -> String {
            let text = counts.sorted { $0.key < $1.key }.map { "\($0.key.isEmpty ? empty : $0.key) \($0.value)" }
            return text.isEmpty ? "0" : text.joined(separator: ", ")
        }
        return HistoryRow(
            id: report.id, created: report.createdAt.formatted(.iso8601), target: report.target,
            pushType: report.pushType, state: report.state.rawValue, targeted: stats.targeted, queued: stats.queued,
            inFlight: stats.inFlight, accepted: stats.accepted, rejected: list(stats.rejected),
            delivered: stats.delivered, displayed: stats.displayed, opened: stats.opened,
            actions: list(stats.actions, empty: "open"), replies: stats.replies, funnel: funnel(stats),
            funnelLabel: funnel(stats).map { "\($0.name) \($0.count)" }.joined(separator: ", "))
    }

    /// The funnel targeted → accepted → delivered → displayed → opened, each step's share of the targeted devices.
    static func funnel(_ stats: NotificationReport.Stats) -> [FunnelStep] {
        let top = max(1, stats.targeted)
        return [
            ("targeted", stats.targeted), ("accepted", stats.accepted), ("delivered", stats.delivered),
            ("displayed", stats.displayed), ("opened", stats.opened),
        ].enumerated().map { index, step in
            FunnelStep(
                name: step.0, count: step.1, percent: Int((100 * Double(min(step.1, top)) / Double(top)).rounded()),
                y: 6 * index)
        }
    }
}
