import Foundation
import WidgetKit

// An app's widget and control push handlers as WidgetKit declares them ("Updating widgets with WidgetKit push
// notifications", `WidgetPushHandler.pushTokenDidChange(_:widgets:)`, `ControlPushHandler.pushTokensDidChange(controls:)`),
// written from Apple's declarations, not from Herald's API; compiled in Swift 5 mode as an app's code is. On iOS a
// widget configuration registers the type with `.pushHandler(ScoreWidgetPushHandler.self)`.

/// What the handlers send to the app's server.
enum ScoreServer {
    static let (widgetTokens, widgetTokenSink) = AsyncStream<(String, [String])>.makeStream()
    static let (controlTokens, controlTokenSink) = AsyncStream<[String: String]>.makeStream()
}

struct ScoreWidgetPushHandler: WidgetPushHandler {
    func pushTokenDidChange(_ pushInfo: WidgetPushInfo, widgets: [WidgetInfo]) {
        let pushTokenString = pushInfo.token.map { String(format: "%02x", $0) }.joined()
        ScoreServer.widgetTokenSink.yield((pushTokenString, widgets.map(\.kind)))
    }
}

struct MuteControlPushHandler: ControlPushHandler {
    func pushTokensDidChange(controls: [ControlInfo]) {
        var tokens: [String: String] = [:]
        for control in controls {
            guard let token = control.pushInfo?.token else { continue }
            tokens[control.kind] = token.map { String(format: "%02x", $0) }.joined()
        }
        ScoreServer.controlTokenSink.yield(tokens)
    }
}
