import APNSCore
package import CoreLocation
import Foundation
import Synchronization
package import UserNotifications

extension SimulatedDevice {
    /// The delivered notifications of every app, newest first.
    package func notifications() async -> [NotificationSnapshot] {
        var snapshots: [NotificationSnapshot] = []
        for app in apps {
            for notification in await app.center.deliveredNotifications() {
                snapshots.append(snapshot(of: notification, in: app))
            }
        }
        return snapshots.sorted { $0.date > $1.date }
    }

    /// The local notifications every app scheduled that wait for their trigger, soonest first (location triggers
    /// last).
    package func pendingNotifications() -> [PendingSnapshot] {
        apps.flatMap { app in
            app.center.pendingNotificationRequestsWithFireDates().map {
                PendingSnapshot(bundleID: app.manifest.bundleID, request: $0.request, nextFire: $0.nextFire)
            }
        }.sorted { ($0.nextFireDate ?? "~") < ($1.nextFireDate ?? "~") }
    }

    /// One delivered notification, expanded: its content extension (when its category has one) receives it.
    ///
    /// - Throws: ``DeviceError`` when no delivered notification has the identifier.
    package func expand(_ id: String) async throws(DeviceError) -> NotificationSnapshot {
        let (app, record) = try lookUp(id)
        let view = app.center.expand(notificationWithIdentifier: record.requestIdentifier)
        guard let notification = await delivered(record, in: app) else { throw Self.unknown(id) }
        return snapshot(of: notification, in: app, contentView: view)
    }

    /// Acts on a delivered notification as the person would: `default` opens it, `dismiss` swipes it away, any other
    /// value is one of its category's actions (with `text` for a text-input action). The response is routed as iOS
    /// routes it (content extension, then the app) and reported.
    ///
    /// - Throws: ``DeviceError`` when the notification is not delivered or the action is not in its category.
    @discardableResult
    package func respond(to id: String, action: String, text: String? = nil) async throws(DeviceError)
        -> ResponseOutcome
    {
        let (app, record) = try lookUp(id)
        let identifier =
            switch action {
            case "default": UNNotificationDefaultActionIdentifier
            case "dismiss": UNNotificationDismissActionIdentifier
            default: action
            }
        guard let notification = await delivered(record, in: app) else { throw Self.unknown(id) }
        let category = notification.request.content.categoryIdentifier
        let own = app.center.category(withIdentifier: category)?.actions.map(\.identifier) ?? []
        guard ["default", "dismiss"].contains(action) || own.contains(action) else {
            let named = category.isEmpty ? "it has no category" : "its category '\(category)' has \(own.count) actions"
            throw DeviceError(
                "'\(action)' is not an action of notification \(id) (\(named)); its actions are "
                    + (["default", "dismiss"] + own).joined(separator: ", "))
        }
        let outcome: ResponseOutcome
        do {
            outcome = try await app.center.respond(
                toNotificationWithIdentifier: record.requestIdentifier, actionIdentifier: identifier, userText: text)
        } catch {
            throw DeviceError((error as? ResponseError)?.message ?? "\(error)")
        }
        let typed = (outcome.response as? UNTextInputNotificationResponse)?.userText
        hub.emit(
            DeviceEvent(
                .response, bundleID: record.bundleID, token: app.token?.hex, apnsID: record.apnsID,
                notificationID: id, action: action, text: typed))
        return outcome
    }

    /// Removes every delivered notification without a response (Notification Center's "Clear").
    package func clear() {
        for app in apps { app.center.removeAllDeliveredNotifications() }
    }

    /// Schedules a local notification for an app; it is delivered when its trigger fires.
    ///
    /// - Throws: ``DeviceError`` when no app has the bundle ID or the center refuses the request.
    package func schedule(_ request: UNNotificationRequest, for bundleID: String) async throws(DeviceError) {
        guard let app = app(named: bundleID) else {
            throw DeviceError("no installed app is \(bundleID); the apps are \(apps.map(\.manifest.bundleID))")
        }
        do {
            try await app.center.add(request)
        } catch {
            throw DeviceError("\(bundleID) cannot schedule \(request.identifier): \(error)")
        }
        wakeForScheduledNotifications()
    }

    /// Moves the device: location triggers whose region was entered or left fire.
    package func updateLocation(_ coordinate: CLLocationCoordinate2D) async {
        for app in apps {
            for outcome in await app.center.updateLocation(coordinate) { record(outcome, of: app, apnsID: nil) }
        }
    }

    private func lookUp(_ id: String) throws(DeviceError) -> (InstalledApp, DeliveryRecords.Record) {
        guard let record = records.withLock({ $0.byID[id] }), let app = app(named: record.bundleID) else {
            throw Self.unknown(id)
        }
        return (app, record)
    }

    private func delivered(_ record: DeliveryRecords.Record, in app: InstalledApp) async -> UNNotification? {
        await app.center.deliveredNotifications().first { $0.request.identifier == record.requestIdentifier }
    }

    private func snapshot(
        of notification: UNNotification, in app: InstalledApp, contentView: NotificationContentView? = nil
    ) -> NotificationSnapshot {
        let bundleID = app.manifest.bundleID
        let requestIdentifier = notification.request.identifier
        let record = records.withLock { records in
            records.id(bundleID: bundleID, requestIdentifier: requestIdentifier).flatMap { records.byID[$0] }
        }
        return NotificationSnapshot(
            id: record?.id ?? requestIdentifier, apnsID: record?.apnsID, bundleID: bundleID,
            notification: notification,
            category: app.center.category(withIdentifier: notification.request.content.categoryIdentifier),
            contentView: contentView)
    }

    static func unknown(_ id: String) -> DeviceError {
        DeviceError("no delivered notification has the id \(id); GET /notifications lists them")
    }
}
