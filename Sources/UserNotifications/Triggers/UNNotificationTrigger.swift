public import Foundation

/// What makes a notification request fire. The system uses its subclasses: time interval, calendar, location and
/// push.
// Safety: triggers are immutable after creation.
open class UNNotificationTrigger: NSObject, NSCopying, @unchecked Sendable {
    /// Whether the trigger fires again after it fires.
    public let repeats: Bool

    init(repeats: Bool) {
        self.repeats = repeats
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The first date after `date` the trigger fires, or `nil` when it will not fire by time.
    func nextFireDate(after date: Date, scheduledAt: Date) -> Date? { nil }
}

/// The trigger of a notification that came from APNs. Only the system makes one.
// Safety: immutable after creation.
open class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    override init(repeats: Bool) {
        super.init(repeats: repeats)
    }

    open override var description: String { "<UNPushNotificationTrigger repeats: \(repeats)>" }
}
