package import APNSCore
package import Foundation

/// A Live Activity as the device API and terminal show it.
package struct ActivitySummary: Sendable, Hashable, Encodable {
    package let bundleID: String
    package let id: String
    package let attributesType: String
    /// `pending`, `active`, `stale`, `ended` or `dismissed`.
    package let state: String
    package let attributes: JSONValue
    package let contentState: JSONValue
    /// Its own push token (hex), for updates by device push.
    package let pushToken: String?
    /// The broadcast channel it is subscribed to.
    package let channel: String?
    package let staleDate: Date?
    /// The newest `timestamp` a push applied.
    package let timestamp: Int?
    package let startedAt: Date
    package let endedAt: Date?
    package let dismissAt: Date?
    /// `standard` or `transient`.
    package let style: String
    /// A scheduled activity's start: `pending` until then.
    package let scheduledStart: Date?
    /// The last alert the activity showed.
    package let alert: Alert?

    /// An alert a Live Activity showed, as iOS shows it with the update: title, body, sound.
    package struct Alert: Sendable, Hashable, Encodable {
        package let title: String
        package let body: String
        /// The sound file; `nil` for the default sound.
        package let sound: String?
        package let shownAt: Date
    }
}
