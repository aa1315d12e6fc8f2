import APNSCore
package import Foundation

/// A delivery a worker leased: one notification to one device or one broadcast channel.
package struct LeasedDelivery: Sendable {
    package var id: Int64
    package var notificationID: String
    package var appID: String
    package var address: DeliveryAddress
    /// How many times it has been leased, this time included.
    package var attempts: Int
}

/// What became of a leased delivery; recorded in batches. A result names its delivery's notification, whose
/// counters it moves.
package enum DeliveryResult: Sendable {
    /// APNs answered 200.
    case accepted(id: Int64, notificationID: String, uniqueID: String?, at: Date)
    /// APNs refused it for good. `deactivate` names the token to mark inactive (410, `BadDeviceToken`).
    case rejected(
        id: Int64, notificationID: String, status: Int?, reason: String, at: Date, deactivate: Deactivation?)
    /// It may succeed later: back to the queue at `notBefore`.
    case retry(id: Int64, reason: String, notBefore: Date)
    /// It never reached APNs (no connection could be made): back to the queue at `notBefore` without spending an
    /// attempt, since APNs never saw it.
    case wait(id: Int64, reason: String, notBefore: Date)

    package struct Deactivation: Sendable {
        package var appID: String
        package var token: String
        package var at: Date
        package var reason: String

        /// Every stored property, as given.
        package init(appID: String, token: String, at: Date, reason: String) {
            self.appID = appID
            self.token = token
            self.at = at
            self.reason = reason
        }

        /// A registration of the token older than this is the one APNs retired. APNs gives its time in whole
        /// milliseconds (rounded down), so a registration within that millisecond counts as older: a device that
        /// registered and was unregistered in the same millisecond is deactivated, not kept.
        package var registeredBefore: Date { at.addingTimeInterval(0.001) }
    }
}

/// One event a device reported about a delivery.
/// What a report claims, which the store checks before recording it.
package struct FeedbackClaim: Sendable {
    /// The delivery's `apns-id`, as the device received it.
    package var message: DeliveryMessageID
    /// With the publishable key: the token the delivery must have reached (a broadcast to a channel reached none).
    package var token: String?
    /// The provider's time, which the reported time is kept near.
    package var now: Date

    package init(message: DeliveryMessageID, token: String?, now: Date) {
        self.message = message
        self.token = token
        self.now = now
    }

    /// Whether a delivery to `token` (empty for a channel broadcast) may be reported on with this claim.
    package func allows(token delivered: String) -> Bool {
        guard let token else { return true }
        return !delivered.isEmpty && token.lowercased() == delivered.lowercased()
    }
}

package struct FeedbackEvent: Sendable {
    /// `delivered`, `displayed`, `opened`, `dismissed`, `action` or `outcome`.
    package var event: String
    package var action: String?
    package var reply: String?
    package var at: Date
    /// For an `outcome`: what became of it on the device (``DeliveryOutcome``) and the device's words for it.
    package var outcome: DeliveryOutcome? = nil
    package var detail: String? = nil

    /// Every stored property, as given.
    package init(
        event: String, action: String? = nil, reply: String? = nil, at: Date, outcome: DeliveryOutcome? = nil,
        detail: String? = nil
    ) {
        self.event = event
        self.action = action
        self.reply = reply
        self.at = at
        self.outcome = outcome
        self.detail = detail
    }

    /// One of a delivery's columns that keep the first time of a stage, and the counter that counts it.
    package struct Stamp: Sendable, Equatable {
        package var column: String
        package var counter: NotificationCounter

        static let delivered = Stamp(column: "delivered_at", counter: .delivered)
        static let displayed = Stamp(column: "displayed_at", counter: .displayed)
        static let opened = Stamp(column: "opened_at", counter: .opened)
        static let dismissed = Stamp(column: "dismissed_at", counter: .dismissed)

        /// Every stamp, in the order of the stages.
        package static let all = [delivered, displayed, opened, dismissed]
    }

    /// How far ahead of the provider's clock a device's time may be and still be kept as given (clocks drift).
    package static let clockSkew: TimeInterval = 300

    /// Keeps the reported time between the delivery's queueing and a little after now (``clockSkew``): a device's
    /// clock may be wrong, and a time outside that window would order the reports wrongly or, far ahead, escape
    /// retention. A time after the window becomes now, one before it the queueing time.
    ///
    /// - Returns: what was adjusted and why, for the answer; `nil` when the time is kept as given.
    package mutating func keepInWindow(queuedAt: Date, now: Date) -> String? {
        if at > now.addingTimeInterval(Self.clockSkew) {
            let given = at
            at = now
            return "\(given.iso8601Milliseconds) is more than \(Int(Self.clockSkew)) s after the provider's clock; "
                + "recorded as the time it arrived"
        }
        if at < queuedAt {
            let given = at
            at = queuedAt
            return "\(given.iso8601Milliseconds) is before the notification was queued "
                + "(\(queuedAt.iso8601Milliseconds)); recorded as that time"
        }
        return nil
    }

    /// The stamps this event sets where they are still empty: its own stage and every stage it implies, so that a
    /// delivery counts once at each stage it reached whichever receipts came and in whatever order (a push shown was
    /// delivered; one opened, dismissed or acted on was delivered and shown). `opened` is a tap on the notification
    /// only: an action button is counted under its identifier, not as opening (docs/api.md).
    package var stamps: [Stamp] {
        switch event {
        case "delivered": [.delivered]
        case "displayed": [.delivered, .displayed]
        case "opened": [.delivered, .displayed, .opened]
        case "dismissed": [.delivered, .displayed, .dismissed]
        case "action": [.delivered, .displayed]
        default: []
        }
    }

    /// The delivery's outcome codes and details with `outcome` added: `nil` when it was reported before (a repeated
    /// report moves nothing). Details are lines `code: text`, kept to ``detailLimit`` characters in all.
    package func addingOutcome(_ outcome: DeliveryOutcome, to codes: String?, details: String?) -> (String, String?)? {
        var list = codes.map { $0.split(separator: ",").map(String.init) } ?? []
        guard !list.contains(outcome.rawValue) else { return nil }
        list.append(outcome.rawValue)
        let line = detail.map { "\(outcome.rawValue): " + $0.replacingOccurrences(of: "\n", with: " ") }
        let said = [details, line].compactMap { $0 }.joined(separator: "\n")
        return (list.joined(separator: ","), said.isEmpty ? nil : String(said.prefix(Self.detailLimit)))
    }

    /// The events that are a person's answer to a notification: one per delivery, since iOS removes a notification
    /// from the screen once it is tapped, dismissed or acted on.
    package static let responses = ["opened", "dismissed", "action"]

    /// Refuses a second, different answer to a delivery already answered with `earlier` (and `action`).
    package static func refuseSecondResponse(earlier: String, action: String?) -> ProviderError {
        let what = action.map { "\(earlier) \($0)" } ?? earlier
        return .conflict(
            "this delivery was answered already (\(what)): a person answers a notification once, and only that "
                + "answer is recorded; the same answer may be sent again")
    }

    /// The most characters of outcome details kept per delivery.
    package static let detailLimit = 2048

    /// The counters this event moves on a delivery whose stamps in `empty` (and reply, when `replyWasEmpty`) were
    /// empty before it.
    package func counters(empty: [Stamp], replyWasEmpty: Bool) -> [NotificationCounter] {
        var moved = stamps.filter(empty.contains).map(\.counter)
        if reply != nil, replyWasEmpty { moved.append(.replies) }
        return moved
    }
}

/// The running totals kept per notification (table `notification_counters`: notification, name, reason, count), so
/// that a report reads a few rows instead of counting a broadcast's million deliveries. Each moves in the
/// transaction that changes what it counts, and only when a row really changed.
package enum NotificationCounter: String, Sendable, CaseIterable {
    /// Deliveries APNs accepted; rejected ones are counted per reason.
    case accepted, rejected
    /// Deliveries devices reported (the first report of each kind per delivery).
    case delivered, displayed, opened, dismissed
    /// Deliveries with a text reply.
    case replies
    /// Deliveries cancelled before they were sent.
    case cancelled
    /// Deliveries whose device reported an outcome, per ``DeliveryOutcome`` (the first report of each per delivery).
    case outcome
}

extension NotificationReport.Stats {
    /// The report from the counters (name, reason, count), the deliveries in flight, and the actions chosen.
    package init(targeted: Int, inFlight: Int, counters: [(String, String, Int)], actions: [(String?, Int)]) {
        self.init()
        self.targeted = targeted
        self.inFlight = inFlight
        for (name, reason, count) in counters {
            switch NotificationCounter(rawValue: name) {
            case .accepted: accepted += count
            case .rejected: rejected[reason.isEmpty ? "Unknown" : reason, default: 0] += count
            case .delivered: delivered += count
            case .displayed: displayed += count
            case .opened: opened += count
            case .dismissed: dismissed += count
            case .replies: replies += count
            case .cancelled: cancelled += count
            case .outcome: outcomes[reason, default: 0] += count
            case nil: break
            }
        }
        for (action, count) in actions { self.actions[action ?? "", default: 0] += count }
        queued = max(0, targeted - inFlight - accepted - cancelled - rejected.values.reduce(0, +))
    }

    /// The statistics of several notifications from the rows of each query, keyed by notification ID; a
    /// notification is in the answer when it has a `targeted` row.
    package static func grouped(
        targeted: [(String, Int)], inFlight: [(String, Int)], counters: [(String, (String, String, Int))],
        actions: [(String, (String?, Int))]
    ) -> [String: Self] {
        let inFlight = Dictionary(inFlight, uniquingKeysWith: +)
        let counters = Dictionary(grouping: counters, by: \.0)
        let actions = Dictionary(grouping: actions, by: \.0)
        var stats: [String: Self] = [:]
        for (id, count) in targeted {
            stats[id] = Self(
                targeted: count, inFlight: inFlight[id] ?? 0, counters: (counters[id] ?? []).map(\.1),
                actions: (actions[id] ?? []).map(\.1))
        }
        return stats
    }
}

/// What the webhook needs about a delivery a user responded to.
package struct DeliveryContext: Sendable {
    package var deliveryID: Int64
    package var notificationID: String
    package var appID: String
    package var token: String
    package var userID: String?
    package var webhookURL: String?
    /// The report was already recorded (the same kind of receipt of the same delivery, at any time: a device that did
    /// not hear the first answer, or one that says it again): nothing was counted again, and no webhook is due.
    package var isRepeat = false
    /// A repeated reply came with another text, which replaced the one recorded.
    package var replacedReply = false
    /// The time recorded (the one reported, or kept in its window), and why it is not the one reported.
    package var recordedAt = Date.distantPast
    package var timeAdjusted: String?
}
