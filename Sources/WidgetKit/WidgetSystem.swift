public import Foundation
import HeraldJSON
public import HeraldTime
import Synchronization

/// The device's side of WidgetKit pushes for one app: its push-updated widget kinds (one token for them all) and
/// controls (a token each), the handlers that hear of the tokens, and each kind's reloads against WidgetKit's daily
/// budget (a rolling 24 hours). ``WidgetCenter`` and ``ControlCenter`` read and change ``shared``; a simulated
/// device keeps one per installed app and feeds it tokens and pushes.
public final class WidgetSystem: Sendable {
    /// The app's system.
    public static let shared = WidgetSystem()

    /// What a push did.
    public enum Reload: Sendable, Hashable {
        /// The kinds whose timelines (or controls) were reloaded, and those refused because their budget is spent.
        case reloaded([String], refused: [String])
        /// Nothing reloaded, and why.
        case ignored(String)
    }

    /// One kind's reloads in the last 24 hours.
    public struct KindStatus: Sendable, Hashable {
        public let reloadsToday: Int
        /// Reloads refused because the budget was spent.
        public let refused: Int
        public let lastReload: Date?
    }

    private struct State {
        var widgetKinds: [String] = []
        var controlKinds: [String] = []
        var budget = WidgetSystem.defaultBudget
        var widgetToken: Data?
        var controlTokens: [String: Data] = [:]
        var reloads: [String: [Date]] = [:]
        var refusals: [String: Int] = [:]
        var widgetHandlers: [@Sendable (WidgetPushInfo, [WidgetInfo]) -> Void] = []
        var controlHandlers: [@Sendable ([ControlInfo]) -> Void] = []
        var observers: [UUID: AsyncStream<[String]>.Continuation] = [:]
        var clock: any WallClock = SystemWallClock()
    }

    /// Reloads a kind may have in 24 hours unless told otherwise: the top of Apple's "40 to 70" for a widget seen
    /// often ("Keeping a widget up to date").
    public static let defaultBudget = 70

    private let state = Mutex(State())

    public init() {}

    /// Declares the app's widget kinds that take pushes, as a widget configuration's `pushHandler(_:)` does on iOS;
    /// the handler is made and told whenever the widgets' token is issued or changes.
    public func configure<Handler: WidgetPushHandler>(widgets kinds: [String], pushHandler: Handler.Type) {
        state.withLock { state in
            state.widgetKinds = Self.merged(state.widgetKinds, kinds)
            state.widgetHandlers.append { info, widgets in Handler().pushTokenDidChange(info, widgets: widgets) }
        }
    }

    /// Declares the app's control kinds that take pushes, as a control configuration's `pushHandler(_:)` does.
    public func configure<Handler: ControlPushHandler>(controls kinds: [String], pushHandler: Handler.Type) {
        state.withLock { state in
            state.controlKinds = Self.merged(state.controlKinds, kinds)
            state.controlHandlers.append { controls in Handler().pushTokensDidChange(controls: controls) }
        }
    }

    /// Declares kinds without a handler (a simulated device's manifest), and the daily budget of each.
    public func declare(widgets: [String], controls: [String], budget: Int = WidgetSystem.defaultBudget) {
        state.withLock { state in
            state.widgetKinds = Self.merged(state.widgetKinds, widgets)
            state.controlKinds = Self.merged(state.controlKinds, controls)
            state.budget = budget
        }
    }

    /// The clock budgets are counted on (a test gives a `ManualClock` and moves it).
    public func setClock(_ clock: any WallClock) {
        state.withLock { $0.clock = clock }
    }

    public var widgetKinds: [String] { state.withLock { $0.widgetKinds } }
    public var controlKinds: [String] { state.withLock { $0.controlKinds } }
    public var budget: Int { state.withLock { $0.budget } }
    public var widgetToken: Data? { state.withLock { $0.widgetToken } }

    public func controlToken(_ kind: String) -> Data? { state.withLock { $0.controlTokens[kind] } }

    /// Keeps the widgets' new token and tells the handlers, as WidgetKit calls `pushTokenDidChange(_:widgets:)`.
    public func issueWidgetToken(_ token: Data) {
        let (handlers, kinds) = state.withLock { state in
            state.widgetToken = token
            return (state.widgetHandlers, state.widgetKinds)
        }
        for handler in handlers { handler(WidgetPushInfo(token: token), kinds.map(WidgetInfo.init(kind:))) }
    }

    /// Keeps a control's new token and tells the handlers about every control, as WidgetKit does.
    public func issueControlToken(_ token: Data, kind: String) {
        let (handlers, controls) = state.withLock { state in
            state.controlTokens[kind] = token
            let controls = state.controlKinds.map { kind in
                ControlInfo(kind: kind, pushInfo: state.controlTokens[kind].map(ControlPushInfo.init(token:)))
            }
            return (state.controlHandlers, controls)
        }
        for handler in handlers { handler(controls) }
    }

    /// Whether `token` is the widgets' or a control's.
    public func owns(_ token: Data) -> Bool {
        state.withLock { $0.widgetToken == token || $0.controlTokens.values.contains(token) }
    }

    /// A push delivered to one of the app's tokens: a `widgets` push to the widgets' token with
    /// `"content-changed": true` reloads every widget kind, a `controls` push to a control's token that control, each
    /// within its budget.
    public func receivePush(_ payload: Data, token: Data, pushType: String) -> Reload {
        guard let aps = (try? JSONValue(parsing: payload))?["aps"], case .bool(true)? = aps["content-changed"] else {
            return .ignored("the payload has no \"aps\": {\"content-changed\": true}; WidgetKit reloads nothing")
        }
        let kinds: [String] = state.withLock { state in
            if pushType == "widgets", token == state.widgetToken { return state.widgetKinds }
            if pushType == "controls" { return state.controlKinds.filter { state.controlTokens[$0] == token } }
            return []
        }
        guard !kinds.isEmpty else {
            return .ignored(
                "a \(pushType) push to the app's \(pushType == "widgets" ? "control" : "widget") token: nothing to "
                    + "reload")
        }
        return reload(kinds: kinds)
    }

    /// Reloads `kinds`, each within its budget.
    func reload(kinds: [String]) -> Reload {
        let (reload, observers) = state.withLock { state in
            let time = state.clock.currentDate
            var reloaded: [String] = []
            var refused: [String] = []
            for kind in kinds {
                let recent = (state.reloads[kind] ?? []).filter { time.timeIntervalSince($0) < 86_400 }
                if recent.count >= state.budget {
                    refused.append(kind)
                    state.refusals[kind, default: 0] += 1
                    state.reloads[kind] = recent
                } else {
                    reloaded.append(kind)
                    state.reloads[kind] = recent + [time]
                }
            }
            return (Reload.reloaded(reloaded, refused: refused), reloaded.isEmpty ? [] : Array(state.observers.values))
        }
        if case .reloaded(let kinds, _) = reload { for observer in observers { observer.yield(kinds) } }
        return reload
    }

    /// The kinds reloaded, each time some are: what the widget extension's timeline provider is asked for anew.
    public var reloads: AsyncStream<[String]> {
        AsyncStream { continuation in
            let id = UUID()
            state.withLock { $0.observers[id] = continuation }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.observers.removeValue(forKey: id) }
            }
        }
    }

    /// One kind's reloads in the last 24 hours.
    public func status(of kind: String) -> KindStatus {
        state.withLock { state in
            let time = state.clock.currentDate
            let recent = (state.reloads[kind] ?? []).filter { time.timeIntervalSince($0) < 86_400 }
            return KindStatus(reloadsToday: recent.count, refused: state.refusals[kind] ?? 0, lastReload: recent.last)
        }
    }

    /// Forgets every kind, token, handler and reload (a test's fresh start for ``shared``).
    public func reset() {
        let observers = state.withLock { state in
            let observers = state.observers.values
            state = State()
            return Array(observers)
        }
        for observer in observers { observer.finish() }
    }

    private static func merged(_ old: [String], _ new: [String]) -> [String] {
        old + new.filter { !old.contains($0) }
    }
}
