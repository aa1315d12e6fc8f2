import APNSCore
package import Foundation
package import ProviderStorage

/// A notification as the API, History and `herald why` show it: its state and statistics; and the delivery an
/// `apns-id` names.
extension NotificationOperations {
    /// The report of `notification` with its statistics read now.
    func report(_ notification: StoredNotification) async throws(ProviderError) -> NotificationReport {
        report(notification, stats: try await store.stats(notificationIDs: [notification.id])[notification.id])
    }

    /// The report of `notification` with its statistics (none for one deleted meanwhile).
    func report(_ notification: StoredNotification, stats: NotificationReport.Stats?) -> NotificationReport {
        let stats =
            stats ?? NotificationReport.Stats(targeted: notification.targeted, inFlight: 0, counters: [], actions: [])
        let state: NotificationState
        if notification.cancelledAt != nil {
            state = .cancelled
        } else if notification.dailyAt != nil {
            state = .scheduled
        } else if stats.queued + stats.inFlight == 0 {
            state = .done
        } else {
            state = notification.sendAt > now() ? .scheduled : .sending
        }
        let summary = (try? NotificationTarget.parse(stored: notification.target))?.summary ?? notification.target
        var report = NotificationReport(
            id: notification.id, appID: notification.appID, target: summary, pushType: notification.pushType,
            collapseID: notification.collapseID, sendAt: notification.sendAt, dailyAt: notification.dailyAt,
            createdAt: notification.createdAt, state: state, cancelledAt: notification.cancelledAt,
            prunedAt: notification.prunedAt, stats: stats)
        report.languages = notification.languageCounts
        report.capCategory = notification.capCategory
        return report
    }

    /// A page of an app's notifications, newest first, as `GET /v1/notifications` shows them.
    package func reports(appID: String, before: Date?, limit: Int) async throws(ProviderError)
        -> [NotificationReport]
    {
        let notifications = try await store.notifications(
            appID: appID, before: before?.iso8601CursorBound, limit: limit)
        let stats = try await store.stats(notificationIDs: notifications.map(\.id))
        return notifications.map { report($0, stats: stats[$0.id]) }
    }

    /// The delivery that carried `apnsID`, of any app; `nil` when this provider sent none with it.
    package func deliveryTrace(apnsID: String) async throws(ProviderError) -> DeliveryTrace? {
        guard let message = DeliveryMessageID(apnsID, key: store.messageKey),
            let trace = try await store.delivery(id: message.deliveryID),
            message.isMade(forNotification: trace.notificationID, key: store.messageKey)
        else { return nil }
        return trace
    }

    /// The notification a pruned delivery belonged to, when `apnsID` is one this provider made and then pruned.
    package func prunedDelivery(apnsID: String) async throws(ProviderError) -> PrunedNotification? {
        guard let message = DeliveryMessageID(apnsID, key: store.messageKey) else { return nil }
        return try await store.prunedNotifications(covering: message.deliveryID).first { pruned in
            message.isMade(forNotification: pruned.id, key: store.messageKey)
        }
    }
}
