import APNSCore
import Courier
import Foundation
import HeraldKit
import Synchronization
import WidgetKit

extension SimulatedDevice {
    /// Has the gateway issue each app's widget push token (one for all its widgets) and a token per control, as
    /// WidgetKit does when the app's widgets are configured for push, and tells the terminal, the API and the
    /// provider's report URL (``DeviceEvent/Kind/activity`` events).
    func requestWidgetTokens() async {
        for app in apps {
            guard let widgets = app.widgets, let client = courier.withLock({ $0 }) else { continue }
            do {
                if !widgets.widgetKinds.isEmpty, widgets.widgetToken == nil {
                    let registration = try await client.register(
                        bundleID: app.manifest.bundleID, environment: app.manifest.environment)
                    app.issuedExtraToken(registration)
                    widgets.issueWidgetToken(Data(registration.token.bytes))
                    await postWidgetToken(registration.token, control: nil, app: app)
                    hub.emit(
                        DeviceEvent(
                            .activity, bundleID: app.manifest.bundleID, token: registration.token.hex,
                            message: "widget push token for \(widgets.widgetKinds.joined(separator: ", ")) "
                                + "(WidgetPushHandler.pushTokenDidChange)"))
                }
                for kind in widgets.controlKinds where widgets.controlToken(kind) == nil {
                    let registration = try await client.register(
                        bundleID: app.manifest.bundleID, environment: app.manifest.environment)
                    app.issuedExtraToken(registration)
                    widgets.issueControlToken(Data(registration.token.bytes), kind: kind)
                    await postWidgetToken(registration.token, control: kind, app: app)
                    hub.emit(
                        DeviceEvent(
                            .activity, bundleID: app.manifest.bundleID, token: registration.token.hex,
                            message: "control push token for \(kind) (ControlPushHandler.pushTokensDidChange)"))
                }
            } catch {
                hub.emit(
                    DeviceEvent(
                        .log, bundleID: app.manifest.bundleID, message: "no widget or control push token: \(error)"))
            }
        }
    }

    /// Registers a widgets or control token with the provider (`POST /v1/widgets/tokens`, beside `--register-url`),
    /// as the app's `pushTokenDidChange` would send it to its server.
    private func postWidgetToken(_ token: APNSDeviceToken, control: String?, app: InstalledApp) async {
        guard let herald = app.herald else { return }
        do throws(HeraldError) {
            try await herald.registerWidgetToken(token.bytes, kind: control.map { .control($0) } ?? .widgets)
        } catch {
            hub.emit(DeviceEvent(.log, bundleID: app.manifest.bundleID, message: "widget token not posted: \(error)"))
        }
    }

    /// Hands a `widgets` or `controls` push to the app whose widget or control token it is.
    ///
    /// - Returns: whether it was such a push (the caller acknowledges it either way).
    func receiveWidgetPush(_ notification: AcceptedNotification) -> Bool {
        guard notification.pushType == .widgets || notification.pushType == .controls else { return false }
        let apnsID = notification.apnsID.uuidString.lowercased()
        guard let app = apps.first(where: { $0.widgets?.owns(Data(notification.token.bytes)) == true }),
            let widgets = app.widgets
        else {
            hub.emit(
                DeviceEvent(
                    .log, token: notification.token.hex, apnsID: apnsID,
                    message: "a \(notification.pushType.rawValue) push for a token no app's widgets or controls have: "
                        + "ignored"))
            return true
        }
        let bundleID = app.manifest.bundleID
        switch widgets.receivePush(
            Data(notification.payload), token: Data(notification.token.bytes), pushType: notification.pushType.rawValue)
        {
        case .ignored(let why):
            hub.emit(DeviceEvent(.log, bundleID: bundleID, apnsID: apnsID, message: "widget push ignored: \(why)"))
        case .reloaded(let reloaded, let refused):
            let what = notification.pushType == .widgets ? "timeline" : "control"
            if !reloaded.isEmpty {
                hub.emit(
                    DeviceEvent(
                        .activity, bundleID: bundleID, apnsID: apnsID,
                        message: "\(what) reloaded: \(reloaded.joined(separator: ", "))"))
            }
            if !refused.isEmpty {
                hub.emit(
                    DeviceEvent(
                        .log, bundleID: bundleID, apnsID: apnsID,
                        message: "\(what) reload refused for \(refused.joined(separator: ", ")): its daily budget of "
                            + "\(widgets.budget) reloads is spent (WidgetKit's budget is counted over 24 hours)"))
            }
        }
        return true
    }

    /// Every app's push-updated widgets and controls (`GET /widgets`).
    package func widgetSummaries() -> [WidgetSummary] {
        apps.compactMap { app in app.widgets.map { WidgetSummary($0, bundleID: app.manifest.bundleID) } }
    }
}
