public import Foundation

/// The push token of an app's push-updated widgets (iOS 26), as WidgetKit declares it: `struct WidgetPushInfo` with
/// `let token: Data`.
public struct WidgetPushInfo: Sendable, Hashable {
    /// The token for every widget of the app that takes pushes; valid until ``WidgetPushHandler`` hears of another.
    public let token: Data

    public init(token: Data) {
        self.token = token
    }
}

/// A widget that takes pushes, as ``WidgetPushHandler/pushTokenDidChange(_:widgets:)`` lists it.
public struct WidgetInfo: Sendable, Hashable {
    /// The widget's kind, the string its `WidgetConfiguration` was made with.
    public let kind: String

    public init(kind: String) {
        self.kind = kind
    }
}

/// A type that hears of the widgets' push token, as WidgetKit declares it (iOS 26): registered with a widget
/// configuration's `pushHandler(_:)` on iOS and with ``WidgetSystem/configure(widgets:pushHandler:)`` here; made
/// anew with `init()` for each change.
public protocol WidgetPushHandler: SendableMetatype {
    init()
    /// The token changed (or was issued): send it to the app's server.
    func pushTokenDidChange(_ pushInfo: WidgetPushInfo, widgets: [WidgetInfo])
}

/// The push token of one control (iOS 18), as WidgetKit declares it: `struct ControlPushInfo` with `let token: Data`.
public struct ControlPushInfo: Sendable, Hashable {
    public let token: Data

    public init(token: Data) {
        self.token = token
    }
}

/// A control that takes pushes: its kind and, once issued, its push information.
public struct ControlInfo: Sendable, Hashable {
    public let kind: String
    public var pushInfo: ControlPushInfo?

    public init(kind: String, pushInfo: ControlPushInfo?) {
        self.kind = kind
        self.pushInfo = pushInfo
    }
}

/// A type that hears of the controls' push tokens, as WidgetKit declares it (iOS 18): it is told about every control
/// that takes pushes each time one of their tokens changes.
public protocol ControlPushHandler: SendableMetatype {
    init()
    func pushTokensDidChange(controls: [ControlInfo])
}
