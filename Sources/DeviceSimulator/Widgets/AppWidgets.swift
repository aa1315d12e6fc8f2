import APNSCore
import Foundation
import Synchronization

/// An app's widgets and controls that take pushes, as iOS keeps them: one widget push token for the app's widgets
/// (`WidgetPushInfo`), one per control (`ControlInfo`), and each widget kind's reloads against WidgetKit's daily
/// budget (a rolling 24 hours).
final class AppWidgets: Sendable {
    /// What a push did.
    enum Reload: Sendable {
        /// The kinds whose timelines (or controls) were reloaded, and those refused because their budget is spent.
        case reloaded([String], refused: [String])
        /// Not a reload: the payload has no `content-changed: true`.
        case ignored(String)
    }

    private struct State {
        var widgetToken: APNSDeviceToken?
        var controlTokens: [String: APNSDeviceToken] = [:]
        /// Each kind's reloads in the last 24 hours.
        var reloads: [String: [Date]] = [:]
        var refusals: [String: Int] = [:]
    }

    let widgetKinds: [String]
    let controlKinds: [String]
    let budget: Int
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    init(widgets: [String], controls: [String], budget: Int, now: @escaping @Sendable () -> Date = { Date() }) {
        self.widgetKinds = widgets
        self.controlKinds = controls
        self.budget = budget
        self.now = now
    }

    var widgetToken: APNSDeviceToken? { state.withLock { $0.widgetToken } }

    func controlToken(_ kind: String) -> APNSDeviceToken? { state.withLock { $0.controlTokens[kind] } }

    func setWidgetToken(_ token: APNSDeviceToken) { state.withLock { $0.widgetToken = token } }

    func setControlToken(_ token: APNSDeviceToken, for kind: String) {
        state.withLock { $0.controlTokens[kind] = token }
    }

    /// Whether `token` is the widgets' or a control's.
    func owns(_ token: APNSDeviceToken) -> Bool {
        state.withLock { $0.widgetToken == token || $0.controlTokens.values.contains(token) }
    }

    /// A `widgets` push to the widget token reloads every widget kind; a `controls` push to a control's token
    /// reloads that control. Each kind within its budget is reloaded; one past it is refused.
    func receive(_ payload: [UInt8], token: APNSDeviceToken, pushType: APNSPushType) -> Reload {
        guard let aps = (try? JSONValue(parsing: Data(payload)))?["aps"], Self.isTrue(aps["content-changed"]) else {
            return .ignored("the payload has no \"aps\": {\"content-changed\": true}; WidgetKit reloads nothing")
        }
        let kinds: [String] = state.withLock { state in
            if pushType == .widgets, token == state.widgetToken { return widgetKinds }
            if pushType == .controls { return state.controlTokens.filter { $0.value == token }.map(\.key) }
            return []
        }
        guard !kinds.isEmpty else {
            return .ignored(
                "a \(pushType.rawValue) push to the app's \(pushType == .widgets ? "control" : "widget") token: "
                    + "nothing to reload")
        }
        let time = now()
        return state.withLock { state in
            var reloaded: [String] = []
            var refused: [String] = []
            for kind in kinds {
                let recent = (state.reloads[kind] ?? []).filter { time.timeIntervalSince($0) < 86_400 }
                if recent.count >= budget {
                    refused.append(kind)
                    state.refusals[kind, default: 0] += 1
                    state.reloads[kind] = recent
                } else {
                    reloaded.append(kind)
                    state.reloads[kind] = recent + [time]
                }
            }
            return .reloaded(reloaded, refused: refused)
        }
    }

    /// `true`, as Apple writes it (the lint warns about anything else).
    private static func isTrue(_ value: JSONValue?) -> Bool {
        if case .bool(true)? = value { return true }
        return false
    }

    /// What the device API shows.
    func summary(bundleID: String) -> WidgetSummary {
        let time = now()
        return state.withLock { state in
            func kind(_ name: String, token: APNSDeviceToken?) -> WidgetSummary.Kind {
                let recent = (state.reloads[name] ?? []).filter { time.timeIntervalSince($0) < 86_400 }
                return WidgetSummary.Kind(
                    kind: name, pushToken: token?.hex, reloadsToday: recent.count, budget: budget,
                    refused: state.refusals[name] ?? 0, lastReload: recent.last)
            }
            return WidgetSummary(
                bundleID: bundleID, widgetPushToken: state.widgetToken?.hex,
                widgets: widgetKinds.map { kind($0, token: nil) },
                controls: controlKinds.map { kind($0, token: state.controlTokens[$0]) })
        }
    }
}
