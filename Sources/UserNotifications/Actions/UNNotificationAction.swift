public import Foundation

/// Options of an action button.
public struct UNNotificationActionOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Only on an unlocked device.
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    /// A destructive task, shown highlighted.
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    /// Opens the app in the foreground; without it the app runs in the background.
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}

/// A button a notification offers.
// Safety: immutable after creation.
open class UNNotificationAction: NSObject, NSCopying, @unchecked Sendable {
    /// The identifier the response carries; unique across all categories.
    public let identifier: String
    /// The button's title.
    public let title: String
    /// How the action behaves.
    public let options: UNNotificationActionOptions

    /// An action.
    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAction, type(of: other) == type(of: self) else { return false }
        return identifier == other.identifier && title == other.title && options == other.options
    }

    open override var hash: Int { identifier.hashValue }
}

/// An action that asks the person for text, as a reply button does.
// Safety: immutable after creation.
open class UNTextInputNotificationAction: UNNotificationAction, @unchecked Sendable {
    /// The title of the send button.
    public let textInputButtonTitle: String
    /// The placeholder in the empty text field.
    public let textInputPlaceholder: String

    /// A text-input action.
    public init(
        identifier: String,
        title: String,
        options: UNNotificationActionOptions = [],
        textInputButtonTitle: String,
        textInputPlaceholder: String
    ) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNTextInputNotificationAction, super.isEqual(object) else { return false }
        return textInputButtonTitle == other.textInputButtonTitle && textInputPlaceholder == other.textInputPlaceholder
    }

    open override var hash: Int { identifier.hashValue }
}

/// The action identifier of a response when the person opened the app from the notification.
public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
/// The action identifier of a response when the person dismissed the notification (sent only for categories with
/// ``UNNotificationCategoryOptions/customDismissAction``).
public let UNNotificationDismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
