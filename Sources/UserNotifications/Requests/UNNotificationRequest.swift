public import Foundation

/// A notification to deliver: an identifier, the content and what triggers it (`nil` for now).
///
/// A request with the identifier of a pending one replaces it; with the identifier of a delivered one, it alerts again
/// and replaces that notification.
// Safety: immutable after creation.
open class UNNotificationRequest: NSObject, NSCopying, @unchecked Sendable {
    /// The identifier that makes later requests replace this one.
    public let identifier: String
    /// What the notification shows and carries.
    public let content: UNNotificationContent
    /// What delivers it: a time, a date, a place, a push, or `nil` for at once.
    public let trigger: UNNotificationTrigger?

    /// A request. The content is copied, so later changes to a mutable content do not change the request.
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content.copy() as! UNNotificationContent
        self.trigger = trigger
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String {
        "<UNNotificationRequest identifier: \(identifier), content: \(content), trigger: \(trigger.map { "\($0)" } ?? "nil")>"
    }
}
