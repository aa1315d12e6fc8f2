package import Foundation

/// A notification row: what workers need to send each of its deliveries.
package struct StoredNotification: Sendable {
    package var id: String
    package var appID: String
    package var target: String
    package var payload: Data
    package var pushType: String
    package var priority: Int?
    package var expiration: Int?
    package var collapseID: String?
    package var encryptedKey: String?
    package var encrypted: Data?
    package var sendAt: Date
    package var dailyAt: String?
    package var targeted: Int
    package var createdAt: Date
    /// When it was cancelled (`DELETE /v1/notifications/{id}`); a cancelled daily notification is no longer
    /// scheduled.
    package var cancelledAt: Date?
    /// When the rows of its deliveries were last pruned (``RetentionDays``).
    package var prunedAt: Date?
    /// The trace context of the span that created it (``TraceCarrier``: `traceparent: 00-…` lines), when traces are
    /// exported: its sends continue that trace.
    package var traceContext: String?
    /// The payload in each language of its content (``NotificationInput/Content/languages``): a JSON object from a
    /// language tag to that language's payload; `nil` for one text for every device.
    package var localized: Data?
    /// How many of its deliveries were for each language (its tags, and `default`), counted as it was queued.
    package var languageCounts: [String: Int]?
    /// Its own quiet window (replacing the app's), ``quietHoursOff`` to send in the app's quiet window too, `nil`
    /// for the app's.
    package var quietHours: String?
    /// Whether its text names device attributes (`{{firstName|there}}`), filled in for each device as it is sent.
    package var variables = false
    /// The category its app's frequency caps count it in (``FrequencyCap``); `nil` for one no cap counts.
    package var capCategory: String?
    /// ``quietHours`` of a notification sent whatever the app's quiet window.
    package static let quietHoursOff = "off"

    /// Every stored property, as given.
    package init(
        id: String, appID: String, target: String, payload: Data, pushType: String, priority: Int? = nil,
        expiration: Int? = nil, collapseID: String? = nil, encryptedKey: String? = nil, encrypted: Data? = nil,
        sendAt: Date, dailyAt: String? = nil, targeted: Int, createdAt: Date, cancelledAt: Date? = nil,
        prunedAt: Date? = nil, traceContext: String? = nil, localized: Data? = nil,
        languageCounts: [String: Int]? = nil, quietHours: String? = nil, variables: Bool = false,
        capCategory: String? = nil
    ) {
        self.capCategory = capCategory
        self.variables = variables
        self.quietHours = quietHours
        self.localized = localized
        self.languageCounts = languageCounts
        self.traceContext = traceContext
        self.cancelledAt = cancelledAt
        self.prunedAt = prunedAt
        self.id = id
        self.appID = appID
        self.target = target
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.encryptedKey = encryptedKey
        self.encrypted = encrypted
        self.sendAt = sendAt
        self.dailyAt = dailyAt
        self.targeted = targeted
        self.createdAt = createdAt
    }
}
