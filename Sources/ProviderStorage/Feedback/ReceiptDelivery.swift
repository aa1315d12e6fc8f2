package import Foundation

/// A delivery as a batch of receipts reads and changes it: who it reached, what it recorded so far (the stages'
/// first times, the answer, the reply, the outcomes) and its feedback rows.
package struct ReceiptDelivery: Equatable, Sendable {
    package var deliveryID: Int64
    package var notificationID: String
    package var appID: String
    /// When its notification was queued: no receipt is recorded earlier.
    package var queuedAt: Date
    /// The token it reached, as text; empty for a channel broadcast.
    package var token: String
    package var userID: String?
    /// The app's webhook, which each response is sent to.
    package var webhookURL: String?
    /// The first time of each stage it reached, by column (``FeedbackEvent/Stamp/column``).
    package var stamps: [String: Date]
    package var action: String?
    package var reply: String?
    /// The outcome codes reported, comma-separated, and their details.
    package var outcome: String?
    package var outcomeDetail: String?
    /// Its feedback rows, the database's and those the batch adds.
    package var feedback: [Feedback]

    /// A feedback row: one receipt recorded.
    package struct Feedback: Equatable, Sendable {
        /// The row's ID; `nil` for a row the batch inserts.
        package var rowID: Int64?
        package var deliveryID: Int64
        package var notificationID: String
        package var event: String
        package var action: String?
        package var reply: String?
        package var at: Date

        package init(
            rowID: Int64?, deliveryID: Int64, notificationID: String, event: String, action: String?, reply: String?,
            at: Date
        ) {
            self.rowID = rowID
            self.deliveryID = deliveryID
            self.notificationID = notificationID
            self.event = event
            self.action = action
            self.reply = reply
            self.at = at
        }

        /// Whether `other` records the same receipt (the same delivery, kind and action).
        func matches(_ other: Feedback) -> Bool {
            deliveryID == other.deliveryID && event == other.event && action == other.action
        }
    }

    /// Every stored property, as given.
    package init(
        deliveryID: Int64, notificationID: String, appID: String, queuedAt: Date, token: String, userID: String?,
        webhookURL: String?, stamps: [String: Date], action: String?, reply: String?, outcome: String?,
        outcomeDetail: String?, feedback: [Feedback]
    ) {
        self.deliveryID = deliveryID
        self.notificationID = notificationID
        self.appID = appID
        self.queuedAt = queuedAt
        self.token = token
        self.userID = userID
        self.webhookURL = webhookURL
        self.stamps = stamps
        self.action = action
        self.reply = reply
        self.outcome = outcome
        self.outcomeDetail = outcomeDetail
        self.feedback = feedback
    }

    /// What a receipt's answer and its webhook say about this delivery.
    var context: DeliveryContext {
        DeliveryContext(
            deliveryID: deliveryID, notificationID: notificationID, appID: appID, token: token, userID: userID,
            webhookURL: webhookURL)
    }

    /// The stamp columns, in ``FeedbackEvent/Stamp/all``'s order.
    package static let stampColumns = FeedbackEvent.Stamp.all.map(\.column)
}
