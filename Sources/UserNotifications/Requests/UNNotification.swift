public import Foundation

/// A notification the system delivered: its request and when it was delivered.
// Safety: immutable after creation.
open class UNNotification: NSObject, @unchecked Sendable {
    /// When the notification was delivered.
    public let date: Date
    /// The request that produced it.
    public let request: UNNotificationRequest

    /// A delivered notification (made by the system; public so simulators and tests can make one).
    public init(request: UNNotificationRequest, date: Date) {
        self.request = request
        self.date = date
        super.init()
    }

    open override var description: String { "<UNNotification date: \(date), request: \(request)>" }
}
