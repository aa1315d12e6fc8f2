import Foundation

/// The app's view of its widgets, with WidgetKit's names: reload requests and the current push information.
public final class WidgetCenter: Sendable {
    /// The app's widget center, over ``WidgetSystem/shared``.
    public static let shared = WidgetCenter(system: .shared)

    private let system: WidgetSystem

    init(system: WidgetSystem) {
        self.system = system
    }

    /// The widgets' push information (iOS 26): `nil` until the token is issued or when no widget takes pushes.
    public var currentPushInfo: WidgetPushInfo? {
        get async { system.widgetToken.map(WidgetPushInfo.init(token:)) }
    }

    /// Asks for every widget kind's timeline to be reloaded (within the daily budget).
    public func reloadAllTimelines() {
        _ = system.reload(kinds: system.widgetKinds)
    }

    /// Asks for one widget kind's timeline to be reloaded (within the daily budget).
    public func reloadTimelines(ofKind kind: String) {
        _ = system.reload(kinds: [kind])
    }
}

/// The app's view of its controls, with WidgetKit's names (iOS 18).
public final class ControlCenter: Sendable {
    /// The app's control center, over ``WidgetSystem/shared``.
    public static let shared = ControlCenter(system: .shared)

    private let system: WidgetSystem

    init(system: WidgetSystem) {
        self.system = system
    }

    /// Asks for every control to be reloaded.
    public func reloadAllControls() {
        _ = system.reload(kinds: system.controlKinds)
    }

    /// Asks for the controls of one kind to be reloaded.
    public func reloadControls(ofKind kind: String) {
        _ = system.reload(kinds: [kind])
    }
}
