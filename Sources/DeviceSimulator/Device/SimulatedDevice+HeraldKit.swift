import APNSCore
import Crypto
import Foundation
import HeraldKit
import UserNotifications

/// A device whose registration URL is a Herald provider's (`.../v1/devices?key=pk_...`) runs each app's side through
/// HeraldKit, as an iOS app does: registration (`replaces`, the user, the end-to-end key), receipts queued on disk
/// and sent in order, the provider's categories, activity and widget tokens. Any other registration or report URL
/// gets the device's own JSON (docs/devices.md).
extension SimulatedDevice {
    /// The app's HeraldKit when `configuration.registerURL` is a Herald provider's, kept under the device's data
    /// folder (`herald/<bundle ID>`) with the device's end-to-end key.
    static func herald(
        for manifest: AppManifest, configuration: Configuration, key: Curve25519.KeyAgreement.PrivateKey,
        hub: EventHub
    ) throws(DeviceError) -> Herald? {
        guard let (providerURL, publishableKey) = heraldProvider(of: configuration.registerURL) else { return nil }
        var settings = HeraldConfiguration(
            providerURL: providerURL, publishableKey: publishableKey,
            folder: configuration.dataDirectory.appendingPathComponent("herald/\(manifest.bundleID)", isDirectory: true)
        )
        settings.bundleID = manifest.bundleID
        settings.environment = manifest.environment.rawValue
        let bundleID = manifest.bundleID
        do throws(HeraldError) {
            let herald = try Herald(configuration: settings) { problem in
                hub.emit(DeviceEvent(.log, bundleID: bundleID, message: "HeraldKit: \(problem)"))
            }
            try herald.adoptEndToEndKey(key)
            return herald
        } catch {
            throw DeviceError("\(bundleID)'s HeraldKit cannot start: \(error)")
        }
    }

    /// The provider's base URL and publishable key of a registration URL `<base>/v1/devices?key=pk_...`.
    static func heraldProvider(of registerURL: URL?) -> (URL, String)? {
        guard let registerURL, var components = URLComponents(url: registerURL, resolvingAgainstBaseURL: false),
            components.path.hasSuffix("/v1/devices"),
            let key = components.queryItems?.first(where: { $0.name == "key" })?.value, key.hasPrefix("pk_")
        else { return nil }
        components.path = String(components.path.dropLast("/v1/devices".count))
        components.queryItems = nil
        return components.url.map { ($0, key) }
    }

    /// Registers the app's token through HeraldKit, then fetches the provider's categories beside the manifest's.
    func registerThroughHeraldKit(_ app: InstalledApp, herald: Herald) async {
        guard let token = app.token else { return }
        let registration = DeviceRegistration(
            userID: configuration.user?.id, userToken: configuration.user?.token, locale: nil, timeZone: nil,
            appVersion: nil, registersEndToEndKey: true)
        do throws(HeraldError) {
            try await herald.register(deviceToken: token.bytes, registration)
            if let replaced = app.replacedToken { app.replacementReported(replaced) }
        } catch {
            hub.emit(DeviceEvent(.log, bundleID: app.manifest.bundleID, message: "registration not posted: \(error)"))
        }
        await syncCategories(of: app, herald: herald)
    }

    /// The provider's categories (`GET /v1/categories`) set beside the manifest's, as an app does at launch and
    /// when a push says they changed.
    func syncCategories(of app: InstalledApp, herald: Herald) async {
        _ = try? await herald.syncCategories(keeping: app.ownCategories, center: app.center)
    }

    /// The receipt an event is for the provider: deliveries, displays, responses and outcomes of pushes.
    static func receipt(for event: DeviceEvent) -> Receipt? {
        guard let apnsID = event.apnsID, let token = event.token else { return nil }
        switch event.kind {
        case .delivered: return Receipt(.delivered, apnsID: apnsID, token: token, time: event.time)
        case .displayed: return Receipt(.displayed, apnsID: apnsID, token: token, time: event.time)
        case .outcome:
            return Receipt(
                .outcome, apnsID: apnsID, token: token, outcome: event.outcome, detail: event.message, time: event.time)
        case .response:
            switch event.action {
            case nil, "default", UNNotificationDefaultActionIdentifier:
                return Receipt(.opened, apnsID: apnsID, token: token, text: event.text, time: event.time)
            case "dismiss", UNNotificationDismissActionIdentifier:
                return Receipt(.dismissed, apnsID: apnsID, token: token, time: event.time)
            case let action?:
                return Receipt(
                    .action, apnsID: apnsID, token: token, action: action, text: event.text, time: event.time)
            }
        default: return nil
        }
    }

    /// Hands each event of a push to its app's HeraldKit, which queues it and sends it to the provider.
    func reportThroughHeraldKit(_ events: AsyncStream<DeviceEvent>) async {
        for await event in events {
            guard let receipt = Self.receipt(for: event),
                let herald = apps.first(where: { $0.manifest.bundleID == event.bundleID })?.herald
            else { continue }
            herald.report(receipt)
        }
    }
}
