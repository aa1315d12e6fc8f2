public import Foundation

/// Where the notification system reads the wall-clock time, so tests can move time instead of waiting.
public protocol NotificationClock: Sendable {
    /// The current date.
    var currentDate: Date { get }
}

/// The real time.
public struct SystemNotificationClock: NotificationClock {
    public init() {}
    public var currentDate: Date { Date() }
}
