public import Foundation
import WidgetKit

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

    init(_ system: WidgetSystem, bundleID: String) {
        func kind(_ name: String, token: Data?) -> Kind {
            let status = system.status(of: name)
            return Kind(
                kind: name, pushToken: token.map { $0.map { String(format: "%02x", $0) }.joined() },
                reloadsToday: status.reloadsToday, budget: system.budget, refused: status.refused,
                lastReload: status.lastReload)
        }
        self.bundleID = bundleID
        widgetPushToken = system.widgetToken.map { $0.map { String(format: "%02x", $0) }.joined() }
        widgets = system.widgetKinds.map { kind($0, token: nil) }
        controls = system.controlKinds.map { kind($0, token: system.controlToken($0)) }
    }
}
