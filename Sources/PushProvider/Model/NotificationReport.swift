public import Foundation

/// A notification as `GET /v1/notifications/{id}` shows it: what was asked, and how far its deliveries got.
public struct NotificationReport: Codable, Sendable {
    public var id: String
    public var appID: String
    /// `token:...`, `tokens:N`, `user:...`, `tags:...` or `all`.
    public var target: String
    public var pushType: String
    public var collapseID: String?
    public var sendAt: Date
    public var dailyAt: String?
    public var createdAt: Date
    /// Scheduled (before `sendAt`), sending (deliveries queued or in flight) or done.
    public var state: NotificationState
    public var stats: Stats
    /// Said when the notification will reach nobody (its target matched no active device), so a typo in a user or
    /// tag is not a silent success.
    public var warning: String?

    /// Counts over the notification's deliveries and what devices reported.
    public struct Stats: Codable, Sendable, Equatable {
        /// Deliveries created: one per targeted device token.
        public var targeted = 0
        /// Waiting in the queue (new, scheduled or to be retried).
        public var queued = 0
        /// Leased by a worker and not answered yet.
        public var inFlight = 0
        /// Accepted by APNs.
        public var accepted = 0
        /// Refused by APNs, by reason.
        public var rejected: [String: Int] = [:]
        /// Devices that reported the notification delivered, displayed, opened (tapped) or dismissed.
        public var delivered = 0
        public var displayed = 0
        public var opened = 0
        public var dismissed = 0
        /// Action buttons chosen, by action identifier.
        public var actions: [String: Int] = [:]
        /// Text replies received.
        public var replies = 0
        /// What devices reported became of it beyond delivered and displayed, per outcome (`notAuthorized`,
        /// `extensionTimeout`, ...; docs/api.md).
        public var outcomes: [String: Int] = [:]

        public init() {}
    }
}
