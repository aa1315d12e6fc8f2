package import Foundation

/// A notification as `GET /v1/notifications/{id}` shows it: what was asked, and how far its deliveries got.
package struct NotificationReport: Codable, Sendable {
    package var id: String
    package var appID: String
    /// `token:...`, `tokens:N`, `user:...`, `tags:...` or `all`.
    package var target: String
    package var pushType: String
    package var collapseID: String?
    package var sendAt: Date
    package var dailyAt: String?
    package var createdAt: Date
    /// Scheduled (before `sendAt`), sending (deliveries queued or in flight), done or cancelled.
    package var state: NotificationState
    /// When it was cancelled.
    package var cancelledAt: Date?
    /// When its deliveries' rows were last pruned (retention): its counts stay, the rows of each device are gone.
    package var prunedAt: Date?
    package var stats: Stats
    /// How many of its deliveries were for each language of its content (its tags, and `default` for the alert
    /// every other device got); `nil` for one text.
    package var languages: [String: Int]?
    /// The category its app's frequency caps count it in (``FrequencyCap``), when it has one.
    package var capCategory: String?
    /// Said when the notification will reach nobody (its target matched no active device), so a typo in a user or
    /// tag is not a silent success.
    package var warning: String?

    /// Every stored property, as given.
    package init(
        id: String, appID: String, target: String, pushType: String, collapseID: String? = nil, sendAt: Date,
        dailyAt: String? = nil, createdAt: Date, state: NotificationState, cancelledAt: Date? = nil,
        prunedAt: Date? = nil, stats: Stats, warning: String? = nil
    ) {
        self.cancelledAt = cancelledAt
        self.prunedAt = prunedAt
        self.id = id
        self.appID = appID
        self.target = target
        self.pushType = pushType
        self.collapseID = collapseID
        self.sendAt = sendAt
        self.dailyAt = dailyAt
        self.createdAt = createdAt
        self.state = state
        self.stats = stats
        self.warning = warning
    }

    /// Counts over the notification's deliveries and what devices reported.
    package struct Stats: Codable, Sendable, Equatable {
        /// Deliveries created: one per targeted device token.
        package var targeted = 0
        /// Waiting in the queue (new, scheduled or to be retried).
        package var queued = 0
        /// Leased by a worker and not answered yet.
        package var inFlight = 0
        /// Accepted by APNs.
        package var accepted = 0
        /// Refused by APNs, by reason.
        package var rejected: [String: Int] = [:]
        /// Devices that reported the notification delivered, displayed, opened (tapped) or dismissed.
        package var delivered = 0
        package var displayed = 0
        package var opened = 0
        package var dismissed = 0
        /// Action buttons chosen, by action identifier.
        package var actions: [String: Int] = [:]
        /// Text replies received.
        package var replies = 0
        /// Deliveries cancelled with their notification before they were sent.
        package var cancelled = 0
        /// What devices reported became of it beyond delivered and displayed, per outcome (`notAuthorized`,
        /// `extensionTimeout`, ...; docs/api.md).
        package var outcomes: [String: Int] = [:]

        package init() {}
    }
}
