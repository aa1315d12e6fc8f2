import Foundation
import Hummingbird
import UserNotifications

extension DeviceAPI {
    /// The body of `POST /apps/{bundleID}/settings`: what the person changes in Settings, and whether the app is in
    /// the foreground. Absent fields stay as they are.
    struct SettingsChange: Decodable {
        /// The app's notifications allowed at all.
        var notifications: Bool?
        /// Alerts (banners, Notification Center) allowed.
        var alerts: Bool?
        /// The app in the foreground: its delegate's `willPresent` decides what shows.
        var foreground: Bool?
    }

    /// What `POST /apps/{bundleID}/settings` answers: the settings now.
    struct SettingsSummary: Encodable, Sendable {
        var authorizationStatus: String
        var alerts: Bool
        var foreground: Bool
    }

    /// `POST /apps/{bundleID}/settings`: the person turns the app's notifications or alerts off or on, or brings the
    /// app to the foreground, so a push's verdict can be produced (not authorized, alerts off, not presented).
    static func addSettingsRoutes(to router: Router<BasicRequestContext>, device: SimulatedDevice) {
        router.post("apps/:bundleID/settings") { request, context -> JSONBody<SettingsSummary> in
            let bundleID = try context.parameters.require("bundleID")
            guard let center = device.notificationCenter(of: bundleID) else {
                throw HTTPError(.notFound, message: "no app \(bundleID) on this device")
            }
            let change = try await request.decode(as: SettingsChange.self, context: context)
            center.changeSettingsAsThePerson(allowed: change.notifications, alerts: change.alerts)
            if let foreground = change.foreground { center.isAppInForeground = foreground }
            let settings = await center.notificationSettings()
            return JSONBody(
                value: SettingsSummary(
                    authorizationStatus: "\(settings.authorizationStatus)", alerts: settings.alertSetting == .enabled,
                    foreground: center.isAppInForeground))
        }
    }
}
