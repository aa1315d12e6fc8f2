import Foundation
import ProviderStorage

/// A notification as the API, History and `herald why` show it: its state and statistics.
extension PushProviderService {
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
        return NotificationReport(
            id: notification.id, appID: notification.appID, target: summary, pushType: notification.pushType,
            collapseID: notification.collapseID, sendAt: notification.sendAt, dailyAt: notification.dailyAt,
            createdAt: notification.createdAt, state: state, cancelledAt: notification.cancelledAt,
            prunedAt: notification.prunedAt, stats: stats)
    }
}
