import APNSCore
import Courier
import Foundation
import HeraldKit
import HeraldSupport
import Synchronization
import Tracing
import UserNotifications

extension SimulatedDevice {
    /// Runs one push through the pipeline (ARCHITECTURE step 4) and records what the app shows.
    func receive(_ notification: AcceptedNotification) async {
        let apnsID = notification.apnsID.uuidString.lowercased()
        let trace = DeviceTrace(notification, tracer: configuration.tracer)
        defer { trace?.end() }
        guard let app = app(for: notification.token) else {
            hub.emit(
                DeviceEvent(.log, token: notification.token.hex, apnsID: apnsID, message: "no app has this token"))
            return
        }
        let bundleID = app.manifest.bundleID
        guard records.withLock({ $0.firstSighting(of: notification.apnsID) }) else {
            hub.emit(
                DeviceEvent(.log, bundleID: bundleID, apnsID: apnsID, message: "a duplicate apns-id was dropped"))
            return
        }
        let identifier = notification.collapseID?.rawValue ?? apnsID
        var request: UNNotificationRequest
        do {
            request = try UNNotificationRequest(identifier: identifier, apnsPayload: Data(notification.payload))
        } catch {
            hub.emit(DeviceEvent(.log, bundleID: bundleID, apnsID: apnsID, message: "unreadable payload: \(error)"))
            return
        }
        if let herald = app.herald {
            // As an app's `didReceiveRemoteNotification` hands HeraldKit every push, and finishes before it calls the
            // fetch completion handler: a "categories changed" push is handled once they are synced.
            _ = try? await herald.didReceiveRemoteNotification(
                request.content.userInfo, keeping: app.ownCategories, center: app.center)
        }
        var outcomes: [(code: String, detail: String?)] = []
        let failure = ExtensionFailure()
        if Self.runsServiceExtension(request),
            let serviceExtension = makeServiceExtension(for: app, apnsID: apnsID, failure: failure)
        {
            let host = ServiceExtensionHost(timeLimit: configuration.serviceExtensionTimeLimit)
            let extensionSpan = trace?.child("service extension")
            let outcome = await host.run(request, with: serviceExtension)
            extensionSpan?.attributes["herald.extension.resolution"] = "\(outcome.resolution)"
            extensionSpan?.end()
            request = UNNotificationRequest(identifier: identifier, content: outcome.content, trigger: request.trigger)
            let shown: String
            switch outcome.resolution {
            case .modified: shown = "its content handler was called in time: the modified content is shown"
            case .bestAttempt:
                shown = "it ran out of time: its best attempt is shown"
                outcomes.append(("extensionTimeout", "the service extension ran out of its time; its best attempt"))
            case .original: shown = "it never delivered: the original content is shown"
            }
            // An extension that fails hands back the original in time (resolution `modified`): its own words count.
            if let why = failure.reason.withLock({ $0 }) ?? (outcome.resolution == .original ? "" : nil) {
                let said = why.isEmpty ? "it never called its content handler" : why
                outcomes.append((said.hasPrefix("attachFrom") ? "attachmentDropped" : "extensionFailed", said))
            }
            hub.emit(DeviceEvent(.log, bundleID: bundleID, apnsID: apnsID, message: "service extension: \(shown)"))
        }
        let token = app.token?.hex
        if Self.isSilent(request.content) {
            hub.emit(
                DeviceEvent(
                    .delivered, bundleID: bundleID, token: token, apnsID: apnsID,
                    message: "a background notification: the app was woken, nothing shown"))
            report(outcomes + [("background", nil)], of: bundleID, token: token, apnsID: apnsID)
            return
        }
        let display = trace?.child("display")
        let outcome = await app.center.deliverRemoteNotification(request)
        display?.attributes["herald.displayed"] = !outcome.options.isDisjoint(with: [.banner, .alert, .list])
        display?.end()
        record(outcome, of: app, apnsID: apnsID)
        if outcome.notification.request.content.attachments.count < request.content.attachments.count {
            outcomes.append(("attachmentDropped", "the attachment could not be moved into the notification's store"))
        }
        if outcome.options.isDisjoint(with: [.banner, .alert, .list]) {
            outcomes.append(await Self.whyNotShown(app))
        }
        report(outcomes, of: bundleID, token: token, apnsID: apnsID)
    }

    /// Why a delivered push showed nothing: the person's settings, or the foreground app's delegate.
    private static func whyNotShown(_ app: InstalledApp) async -> (code: String, detail: String?) {
        let settings = await app.center.notificationSettings()
        switch settings.authorizationStatus {
        case .denied, .notDetermined:
            return ("notAuthorized", "authorization is \(settings.authorizationStatus)")
        default: break
        }
        if settings.alertSetting != .enabled, settings.authorizationStatus != .provisional {
            return ("alertsOff", "alerts are not allowed for the app")
        }
        return ("foregroundNotPresented", "the app is in the foreground and willPresent chose no banner or list")
    }

    /// Tells the terminal, the API and the provider what became of a push beyond delivered and displayed.
    private func report(
        _ outcomes: [(code: String, detail: String?)], of bundleID: String, token: String?, apnsID: String
    ) {
        for outcome in outcomes {
            hub.emit(
                DeviceEvent(
                    .outcome, bundleID: bundleID, token: token, apnsID: apnsID, message: outcome.detail,
                    outcome: outcome.code))
        }
    }

    /// Records a delivery under its API identifier and tells the subscribers.
    func record(_ outcome: PresentationOutcome, of app: InstalledApp, apnsID: String?) {
        let bundleID = app.manifest.bundleID
        let requestIdentifier = outcome.notification.request.identifier
        let id = apnsID ?? "local-" + UUID().uuidString.lowercased()
        records.withLock {
            $0.add(.init(id: id, apnsID: apnsID, bundleID: bundleID, requestIdentifier: requestIdentifier))
        }
        let token = app.token?.hex
        hub.emit(DeviceEvent(.delivered, bundleID: bundleID, token: token, apnsID: apnsID, notificationID: id))
        if !outcome.options.isDisjoint(with: [.banner, .alert, .list]) {
            hub.emit(DeviceEvent(.displayed, bundleID: bundleID, token: token, apnsID: apnsID, notificationID: id))
        }
    }

    /// The app's service extension; `failure` gets the reason it gave up, when it does.
    private func makeServiceExtension(for app: InstalledApp, apnsID: String, failure: ExtensionFailure)
        -> UNNotificationServiceExtension?
    {
        let bundleID = app.manifest.bundleID
        if let make = configuration.serviceExtensions[bundleID] { return make() }
        guard !app.manifest.serviceExtension.isEmpty else { return nil }
        let hub = self.hub
        return ManifestServiceExtension(
            steps: app.manifest.serviceExtension,
            downloadFolder: configuration.dataDirectory.appendingPathComponent("downloads"),
            downloadPolicy: OutboundPolicy(
                allowedHosts: configuration.allowedAttachmentHosts, allowOption: "herald device --allow-attachment-host"
            ),
            privateKey: app.privateKey
        ) { message in
            let prefix = "the service extension failed, the original content is shown: "
            if message.hasPrefix(prefix) { failure.reason.withLock { $0 = String(message.dropFirst(prefix.count)) } }
            hub.emit(DeviceEvent(.log, bundleID: bundleID, apnsID: apnsID, message: message))
        }
    }

    /// iOS runs the service extension only for `mutable-content: 1` with alert text.
    static func runsServiceExtension(_ request: UNNotificationRequest) -> Bool {
        let aps = request.content.userInfo["aps"] as? [String: Any]
        let mutable = (aps?["mutable-content"] as? NSNumber)?.intValue == 1 || (aps?["mutable-content"] as? Int) == 1
        let content = request.content
        return mutable && !(content.title.isEmpty && content.subtitle.isEmpty && content.body.isEmpty)
    }

    /// A push with no alert, sound or badge only wakes the app.
    static func isSilent(_ content: UNNotificationContent) -> Bool {
        content.title.isEmpty && content.subtitle.isEmpty && content.body.isEmpty && content.sound == nil
            && content.badge == nil && content.attachments.isEmpty
    }
}

/// Why a push's service extension gave up, as it logged it.
final class ExtensionFailure: Sendable {
    let reason = Mutex<String?>(nil)
}
