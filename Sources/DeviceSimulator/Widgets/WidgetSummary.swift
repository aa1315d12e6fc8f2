public import Foundation

/// An app's push-updated widgets and controls, as `GET /widgets` shows them.
public struct WidgetSummary: Sendable, Hashable, Encodable {
    public let bundleID: String
    /// `WidgetPushInfo.token` (hex): the one token for all of the app's widgets.
    public let widgetPushToken: String?
    public let widgets: [Kind]
    public let controls: [Kind]

    /// A widget or control kind: its token (controls), its reloads in the last 24 hours against the budget.
    public struct Kind: Sendable, Hashable, Encodable {
        public let kind: String
        public let pushToken: String?
        public let reloadsToday: Int
        public let budget: Int
        /// Pushes refused because the budget was spent.
        public let refused: Int
        public let lastReload: Date?
    }
}
