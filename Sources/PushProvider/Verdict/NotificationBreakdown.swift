import Foundation
import ProviderStorage

/// One notification's deliveries counted by verdict (`GET /v1/notifications/{id}/breakdown`): read from the running
/// totals the store keeps as it records (`notification_counters`), never by scanning the deliveries, so a broadcast of
/// a million devices answers as fast as one of ten.
///
/// The counts follow each delivery's furthest step: a notification tapped is counted as `opened`, not also as
/// `shown`. A later stage implies the earlier ones (the store stamps them with the report), so each delivery is in
/// exactly one verdict whichever receipts arrived and in what order.
package struct NotificationBreakdown: Codable, Sendable, Hashable {
    package var notificationID: String
    package var targeted: Int
    /// The verdicts with at least one delivery, in ``DeliveryVerdict/Kind`` order.
    package var verdicts: [Entry]
    /// Deliveries whose verdict waits for something (the queue, APNs, the device's report).
    package var undecided: Int
    /// Said once for the whole notification: why deliveries wait for devices' reports that will not come.
    package var note: String?

    /// The note of an app none of whose devices ever reported a receipt.
    package static let noReceiptsNote =
        "no device of this app has ever reported a receipt: delivered, shown and what people did are known only from "
        + "apps that run HeraldKit (docs/ios-app.md); without it, accepted by APNs is the last step Herald sees"

    /// One verdict's count, what it means, and the filter that lists its devices.
    package struct Entry: Codable, Sendable, Hashable {
        package var verdict: String
        package var count: Int
        package var sentence: String
        /// For `rejected`: the count per APNs reason.
        package var reasons: [String: Int]?
        /// `GET /v1/notifications/{id}/verdicts?verdict=...`: the devices with this verdict.
        package var devices: String
    }

    /// The reasons that mean the token is gone, and those a provider retries until it gives up.
    static let goneReasons: Set<String> = ["Unregistered", "ExpiredToken"]
    static let retriedReasons: Set<String> = [
        "TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown", "Unknown", "ProviderError",
        APNSReachability.unreachableReason,
    ]

    init(notificationID: String, stats: NotificationReport.Stats) {
        self.notificationID = notificationID
        targeted = stats.targeted
        let outcome = { (code: DeliveryOutcome) in stats.outcomes[code.rawValue] ?? 0 }
        let acted = stats.actions.values.reduce(0, +)
        let responded = stats.replies + acted + stats.opened + stats.dismissed
        let notShown = outcome(.notAuthorized) + outcome(.alertsOff) + outcome(.foregroundNotPresented)
        let shownVariants = (
            original: outcome(.extensionFailed), bestAttempt: outcome(.extensionTimeout),
            withoutAttachment: outcome(.attachmentDropped)
        )
        let shown = max(
            0,
            stats.displayed - responded - shownVariants.original - shownVariants.bestAttempt
                - shownVariants.withoutAttachment)
        var gone: [String: Int] = [:]
        var gaveUp: [String: Int] = [:]
        var rejected: [String: Int] = [:]
        var quiet = 0
        var capped = 0
        for (reason, count) in stats.rejected {
            if reason == PreparedBatch.quietHoursReason {
                quiet += count
            } else if reason == PreparedBatch.cappedReason {
                capped += count
            } else if Self.goneReasons.contains(reason) {
                gone[reason] = count
            } else if Self.retriedReasons.contains(reason) || reason == PreparedBatch.expiredReason {
                gaveUp[reason] = count
            } else {
                rejected[reason] = count
            }
        }
        let counts: [(DeliveryVerdict.Kind, Int, [String: Int]?)] = [
            (.replied, stats.replies, nil), (.acted, max(0, acted - stats.replies), nil), (.opened, stats.opened, nil),
            (.dismissed, stats.dismissed, nil), (.shown, shown, nil),
            (.shownBestAttempt, shownVariants.bestAttempt, nil),
            (.shownOriginal, shownVariants.original, nil),
            (.shownWithoutAttachment, shownVariants.withoutAttachment, nil),
            (.activityUpdated, outcome(.activityUpdated), nil), (.activityIgnored, outcome(.activityIgnored), nil),
            (.activityThrottled, outcome(.activityThrottled), nil),
            (.background, outcome(.background), nil), (.notShown, notShown, nil),
            (
                .delivered,
                max(0, stats.delivered - stats.displayed - notShown - outcome(.background)), nil
            ),
            (
                .awaitingDevice,
                max(
                    0,
                    stats.accepted - stats.delivered - outcome(.activityUpdated) - outcome(.activityIgnored)
                        - outcome(.activityThrottled)), nil
            ),
            (.rejected, rejected.values.reduce(0, +), rejected), (.tokenGone, gone.values.reduce(0, +), gone),
            (.gaveUp, gaveUp.values.reduce(0, +), gaveUp), (.quietHours, quiet, nil),
            (.capped, capped, nil), (.cancelled, stats.cancelled, nil),
            (.queued, stats.queued, nil),
            (.sending, stats.inFlight, nil),
        ]
        verdicts = counts.filter { $0.1 > 0 }.map { kind, count, reasons in
            Entry(
                verdict: kind.rawValue, count: count, sentence: Self.sentence[kind] ?? kind.rawValue,
                reasons: reasons?.isEmpty == false ? reasons : nil,
                devices: "/v1/notifications/\(notificationID)/verdicts?verdict=\(kind.rawValue)")
        }
        undecided =
            max(
                0,
                stats.accepted - stats.delivered - outcome(.activityUpdated) - outcome(.activityIgnored)
                    - outcome(.activityThrottled))
            + stats.queued + stats.inFlight
    }

    /// Each kind in a breakdown's words.
    static let sentence: [DeliveryVerdict.Kind: String] = [
        .replied: "shown, and the person replied", .acted: "shown, and the person chose an action",
        .opened: "shown, and the person tapped it", .dismissed: "shown, and the person dismissed it",
        .shown: "shown, no response yet",
        .shownBestAttempt: "shown as the service extension's best attempt (it ran out of time)",
        .shownOriginal: "shown as the original content (the service extension failed)",
        .shownWithoutAttachment: "shown without its attachment",
        .activityUpdated: "the Live Activity took it", .activityIgnored: "the Live Activity took nothing from it",
        .activityThrottled: "the Live Activity dropped it: past its hourly budget of priority-10 pushes",
        .background: "background: the app was woken, nothing to show",
        .notShown: "not shown (not authorized, alerts off, or the foreground app chose not to)",
        .delivered: "reached the app; not reported shown",
        .awaitingDevice: "accepted by APNs; no report from the device yet (offline, expired or replaced: see each)",
        .rejected: "rejected by APNs", .tokenGone: "the token is no longer valid (410): the provider stopped using it",
        .gaveUp: "APNs kept refusing for a while (429, 500, 503), or could not be reached until it expired; the "
            + "provider gave up",
        .quietHours: "not sent: it fell in the device's quiet hours, which drop alerts",
        .capped: "not sent: its user or device had its category's frequency cap already",
        .cancelled: "never sent: the notification was cancelled",
        .queued: "not sent yet: scheduled, waiting for a retry or the end of quiet hours, paused, or in the queue",
        .sending: "being sent",
    ]
}
