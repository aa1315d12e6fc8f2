public import APNSCore
public import Foundation

/// A Live Activity as the device API and terminal show it.
public struct ActivitySummary: Sendable, Hashable, Encodable {
    public let bundleID: String
    public let id: String
    public let attributesType: String
    /// `pending`, `active`, `stale`, `ended` or `dismissed`.
    public let state: String
    public let attributes: JSONValue
    public let contentState: JSONValue
    /// Its own push token (hex), for updates by device push.
    public let pushToken: String?
    /// The broadcast channel it is subscribed to.
    public let channel: String?
    public let staleDate: Date?
    /// The newest `timestamp` a push applied.
    public let timestamp: Int?
    public let startedAt: Date
    public let endedAt: Date?
    public let dismissAt: Date?
    /// `standard` or `transient`.
    public let style: String
    /// A scheduled activity's start: `pending` until then.
    public let scheduledStart: Date?
    /// The last alert the activity showed.
    public let alert: Alert?

    /// An alert a Live Activity showed, as iOS shows it with the update: title, body, sound.
    public struct Alert: Sendable, Hashable, Encodable {
        public let title: String
        public let body: String
        /// The sound file; `nil` for the default sound.
        public let sound: String?
        public let shownAt: Date
    }
}
