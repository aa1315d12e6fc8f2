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

/// The image beside an action's title (iOS 15): an SF Symbol or an image of the app's asset catalog, drawn as a
/// template. A simulated device shows its name.
// Safety: immutable after creation.
open class UNNotificationActionIcon: NSObject, NSCopying, @unchecked Sendable {
    /// Where the image comes from.
    enum Source: Hashable, Sendable {
        /// A system symbol (`init(systemImageName:)`).
        case system(String)
        /// An image in the app's bundle (`init(templateImageName:)`).
        case template(String)
    }

    let source: Source

    /// An icon from an image in the app's bundle, drawn as a template.
    public convenience init(templateImageName: String) {
        self.init(source: .template(templateImageName))
    }

    /// An icon from a system symbol (SF Symbols), such as `"heart"`.
    public convenience init(systemImageName: String) {
        self.init(source: .system(systemImageName))
    }

    init(source: Source) {
        self.source = source
        super.init()
    }

    /// The image's name, as a simulated device shows it: `systemImageName` or `templateImageName`.
    package var imageName: String {
        switch source {
        case .system(let name), .template(let name): name
        }
    }

    /// Whether the image is a system symbol (else an image of the app's bundle).
    package var isSystemImage: Bool {
        if case .system = source { return true }
        return false
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? UNNotificationActionIcon)?.source == source
    }

    open override var hash: Int { source.hashValue }
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
    /// The image beside the title (iOS 15); `nil` for none.
    public let icon: UNNotificationActionIcon?

    /// An action.
    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.icon = nil
        super.init()
    }

    /// An action with an image beside its title (iOS 15).
    public init(
        identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?
    ) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.icon = icon
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAction, type(of: other) == type(of: self) else { return false }
        return identifier == other.identifier && title == other.title && options == other.options
            && icon == other.icon
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

    /// A text-input action with an image beside its title (iOS 15).
    public init(
        identifier: String,
        title: String,
        options: UNNotificationActionOptions = [],
        icon: UNNotificationActionIcon?,
        textInputButtonTitle: String,
        textInputPlaceholder: String
    ) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options, icon: icon)
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
