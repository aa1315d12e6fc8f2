import APNSCore
import Foundation
import HeraldSupport
import Logging
import Prometheus
import ProviderStorage

/// A notification's lifecycle after creation: cancel, change, resend.
extension NotificationOperations {
    /// What `DELETE /v1/notifications/{id}` answers: the report after the cancel, and how many deliveries it stopped.
    struct Cancellation: Encodable {
        var notification: NotificationReport
        /// Deliveries that were queued and will never be sent.
        var cancelled: Int
        /// Deliveries leased as it was cancelled: those already written to APNs are answered and counted as usual;
        /// those not yet written are withheld and cancelled (the report's `stats.cancelled` grows by them).
        var inFlight: Int
    }

    /// What a resend answers: how many deliveries went back to the queue, from how many notifications.
    struct Resent: Encodable {
        var resent: Int
        var notifications: Int
        /// The reasons resent: those of deliveries the provider gave up on.
        var reasons: [String]
    }

    /// The reasons a delivery gives up for, which a resend may send again (APNs' or the network's trouble, not the
    /// notification's or the token's fault).
    static var resendableReasons: [String] { NotificationBreakdown.retriedReasons.sorted() }

    /// Cancels a notification: its queued deliveries are never sent; a daily one is no longer scheduled.
    ///
    /// - Throws: ``ProviderError/conflict(_:)`` naming its state when it is already done or cancelled.
    func cancel(_ notification: StoredNotification) async throws(ProviderError) -> Cancellation {
        let before = try await report(notification)
        switch before.state {
        case .cancelled:
            throw .conflict(
                "notification \(notification.id) was already cancelled at "
                    + "\(notification.cancelledAt.map(Self.time) ?? "?"); nothing is left to send")
        case .done:
            throw .conflict(
                "notification \(notification.id) is done: every delivery has APNs' answer (accepted "
                    + "\(before.stats.accepted), rejected \(before.stats.rejected.values.reduce(0, +))); nothing is "
                    + "left to cancel")
        case .scheduled, .sending: break
        }
        let cancelled = try await store.cancelNotification(id: notification.id, at: now())
        // What this provider's workers hold of it and have not sent stops too (cancelled after their batch).
        engine.stopSending(notificationID: notification.id)
        metrics.cancelled(cancelled)
        logger.notice(
            "notification cancelled", metadata: ["notification": "\(notification.id)", "deliveries": "\(cancelled)"])
        changes.notify()
        guard let after = try await store.notification(id: notification.id) else {
            throw .notFound("notification \(notification.id) was deleted meanwhile")
        }
        let report = try await report(after)
        return Cancellation(notification: report, cancelled: cancelled, inFlight: report.stats.inFlight)
    }

    /// Changes a notification that has sent nothing: its content, headers, send time or daily time.
    ///
    /// - Throws: ``ProviderError/conflict(_:)`` naming its state when it is sending, done or cancelled; a field
    ///   error for a change that is not allowed or not valid.
    func change(_ notification: StoredNotification, with change: NotificationChange, app: StoredApp)
        async throws(ProviderError) -> NotificationReport
    {
        let now = now()
        let current = try await report(notification)
        switch current.state {
        case .scheduled: break
        case .cancelled:
            throw .conflict("notification \(notification.id) was cancelled; create a new one")
        case .sending, .done:
            throw .conflict(
                "notification \(notification.id) is \(current.state.rawValue) (accepted \(current.stats.accepted) of "
                    + "\(current.stats.targeted)): only a notification that has sent nothing can change; cancel "
                    + "what is left (DELETE /v1/notifications/\(notification.id)) and create a new one")
        }
        let changed = try change.applied(to: notification, bundleID: app.app.bundleID, now: now)
        let newDailyTime = notification.dailyAt != nil && changed.dailyAt != notification.dailyAt
        guard
            try await store.updateUnsentNotification(changed, dropOccurrences: newDailyTime, now: now)
        else {
            throw .conflict(
                "notification \(notification.id) started sending while it was being changed: nothing was changed; "
                    + "cancel what is left and create a new one")
        }
        if newDailyTime {
            await scheduler.scheduleDue(now: now, only: notification.id)
        }
        if changed.localized != notification.localized, changed.dailyAt == nil {
            try await recountLanguages(changed)
        }
        engine.notify()
        guard let stored = try await store.notification(id: notification.id) else {
            throw .notFound("notification \(notification.id) was deleted meanwhile")
        }
        return try await report(stored)
    }

    /// Counts a changed notification's deliveries by language again, or forgets the counts of one whose new text has
    /// no languages.
    private func recountLanguages(_ notification: StoredNotification) async throws(ProviderError) {
        guard let localized = notification.localized,
            case .object(let map)? = try? JSONValue(parsing: localized),
            let target = try? NotificationTarget.parse(stored: notification.target)
        else {
            try await store.setLanguageCounts(notificationID: notification.id, counts: nil)
            return
        }
        try await countLanguages(
            notification.id, tags: map.members.map(\.key), target: target, targeted: notification.targeted,
            appID: notification.appID)
    }

    /// Sends again the deliveries of `notifications` the provider gave up on (for `reasons`, answered within
    /// `answered`), with their own `apns-id`s.
    func resend(_ notifications: [StoredNotification], reasons: [String], answered: ClosedRange<Date>)
        async throws(ProviderError) -> Resent
    {
        var resent = 0
        var touched = 0
        // An operator resends when APNs should be back: the app's next probe need not wait for its backoff step.
        for appID in Set(notifications.map(\.appID)) { engine.reachability.probeSoon(appID: appID, now: now()) }
        for notification in notifications where notification.cancelledAt == nil {
            let count = try await store.resend(
                notificationID: notification.id, reasons: reasons, answered: answered, now: now())
            resent += count
            touched += count > 0 ? 1 : 0
        }
        if resent > 0 {
            metrics.deliveriesResent.increment(by: Int64(resent))
            logger.notice("deliveries resent", metadata: ["count": "\(resent)", "notifications": "\(touched)"])
            engine.notify()
        }
        return Resent(resent: resent, notifications: touched, reasons: reasons)
    }

    /// The reasons a resend asks for, within the answer times `answered`: `reason` when given, else every reason the
    /// provider gives up for. A reason about the app's credentials (``CredentialPause/reasons``, refused before the
    /// provider paused apps for them) is taken only for deliveries refused before `app` last changed: the same
    /// credentials would be refused the same way.
    ///
    /// - Throws: ``ProviderError/field(_:_:)`` for a reason that is APNs' verdict on the notification or token;
    ///   ``ProviderError/conflict(_:)`` for a credential reason while the app is paused for its credentials.
    static func resendReasons(_ reason: String?, app: ProviderApp, answered: ClosedRange<Date>)
        throws(ProviderError) -> (reasons: [String], answered: ClosedRange<Date>)
    {
        guard let reason else { return (resendableReasons, answered) }
        if CredentialPause.reasons.contains(reason) {
            if let refused = app.pauseReason {
                throw .conflict(
                    "app \(app.id) is paused because APNs refused its credentials (\(refused)): check them with "
                        + "herald doctor --app \(app.id) and correct them (PATCH /v1/apps/\(app.id)); what waited is "
                        + "sent then, and \(reason) deliveries refused before the change can be resent")
            }
            let before = min(answered.upperBound, app.updatedAt)
            return ([reason], min(answered.lowerBound, before)...before)
        }
        guard resendableReasons.contains(reason) else {
            throw .field(
                "reason",
                "\(reason) is not a reason the provider gives up for; it resends only deliveries that gave up ("
                    + resendableReasons.joined(separator: ", ")
                    + ") or that APNs refused for the app's credentials before they changed ("
                    + CredentialPause.reasons.sorted().joined(separator: ", ")
                    + "): a notification APNs refused for its content or token fails the same way again")
        }
        return ([reason], answered)
    }

    private static func time(_ date: Date) -> String { date.formatted(.iso8601) }
}
