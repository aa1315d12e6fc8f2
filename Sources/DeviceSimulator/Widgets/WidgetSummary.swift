package import Foundation
import WidgetKit

/// An app's push-updated widgets and controls, as `GET /widgets` shows them.
package struct WidgetSummary: Sendable, Hashable, Encodable {
    package let bundleID: String
    /// `WidgetPushInfo.token` (hex): the one token for all of the app's widgets.
    package let widgetPushToken: String?
    package let widgets: [Kind]
    package let controls: [Kind]

    /// A widget or control kind: its token (controls), its reloads in the last 24 hours against the budget.
    package struct Kind: Sendable, Hashable, Encodable {
        package let kind: String
        package let pushToken: String?
        package let reloadsToday: Int
        package let budget: Int
        /// Pushes refused because the budget was spent.
        package let refused: Int
        package let lastReload: Date?
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
