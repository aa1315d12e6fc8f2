public import Foundation

/// Fires a number of seconds after the request is added; repeating ones every that many seconds.
///
/// As on iOS, an interval of 0 or less, or a repeating interval under 60 seconds, is a programming error that stops
/// the process.
// Safety: immutable after creation.
open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The seconds between adding the request and firing.
    public let timeInterval: TimeInterval

    /// A trigger that fires `timeInterval` seconds from when the request is added.
    ///
    /// - Parameters:
    ///   - timeInterval: greater than 0; at least 60 when `repeats` is true.
    ///   - repeats: whether to fire again every `timeInterval` seconds.
    public init(timeInterval: TimeInterval, repeats: Bool) {
        precondition(timeInterval > 0, "time interval must be greater than 0")
        precondition(!repeats || timeInterval >= 60, "time interval must be at least 60 if repeating")
        self.timeInterval = timeInterval
        super.init(repeats: repeats)
    }

    /// The next date the trigger fires, counted from now as if it were added now.
    open func nextTriggerDate() -> Date? { Date().addingTimeInterval(timeInterval) }

    override func nextFireDate(after date: Date, scheduledAt: Date) -> Date? {
        let first = scheduledAt.addingTimeInterval(timeInterval)
        guard repeats, first <= date else { return first > date ? first : nil }
        let periods = (date.timeIntervalSince(first) / timeInterval).rounded(.down) + 1
        return first.addingTimeInterval(periods * timeInterval)
    }

    open override var description: String {
        "<UNTimeIntervalNotificationTrigger timeInterval: \(timeInterval), repeats: \(repeats)>"
    }
}
