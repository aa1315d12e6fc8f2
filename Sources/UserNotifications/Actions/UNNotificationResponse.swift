public import Foundation

/// What the person did with a delivered notification: opened it, dismissed it, or chose an action.
// Safety: immutable after creation.
open class UNNotificationResponse: NSObject, NSCopying, @unchecked Sendable {
    /// The notification acted on.
    public let notification: UNNotification
    /// ``UNNotificationDefaultActionIdentifier``, ``UNNotificationDismissActionIdentifier`` or an action's identifier.
    public let actionIdentifier: String

    /// A response (made by the system; public so simulators and tests can make one).
    public init(notification: UNNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// The response to a text-input action, with the text the person entered.
// Safety: immutable after creation.
open class UNTextInputNotificationResponse: UNNotificationResponse, @unchecked Sendable {
    /// The text entered or chosen.
    public let userText: String

    /// A text response.
    public init(notification: UNNotification, actionIdentifier: String, userText: String) {
        self.userText = userText
        super.init(notification: notification, actionIdentifier: actionIdentifier)
    }
}
