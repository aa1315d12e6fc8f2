public import Foundation

/// Options of a category.
public struct UNNotificationCategoryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Send dismiss actions to the delegate.
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
    /// Allow in CarPlay.
    public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
    /// Show the title when previews are hidden.
    public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
    /// Show the subtitle when previews are hidden.
    public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)
    /// Allow Siri to announce (deprecated on iOS).
    public static let allowAnnouncement = UNNotificationCategoryOptions(rawValue: 1 << 4)
}

/// A kind of notification an app declares, with its action buttons in display order.
// Safety: immutable after creation.
open class UNNotificationCategory: NSObject, NSCopying, @unchecked Sendable {
    /// The identifier a notification's `categoryIdentifier` (the payload's `category`) names.
    public let identifier: String
    /// The actions, in the order shown.
    public let actions: [UNNotificationAction]
    /// The intents the category relates to.
    public let intentIdentifiers: [String]
    /// How the category behaves.
    public let options: UNNotificationCategoryOptions
    /// The text shown instead of the body when previews are hidden.
    public let hiddenPreviewsBodyPlaceholder: String?
    /// The summary format of grouped notifications, for example "%u new messages from %@".
    public let categorySummaryFormat: String?

    /// A category.
    public init(
        identifier: String,
        actions: [UNNotificationAction],
        intentIdentifiers: [String],
        hiddenPreviewsBodyPlaceholder: String? = nil,
        categorySummaryFormat: String? = nil,
        options: UNNotificationCategoryOptions = []
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.categorySummaryFormat = categorySummaryFormat
        super.init()
    }

    /// A category (the iOS 10 initializer).
    public convenience init(
        identifier: String,
        actions: [UNNotificationAction],
        intentIdentifiers: [String],
        options: UNNotificationCategoryOptions = []
    ) {
        self.init(
            identifier: identifier,
            actions: actions,
            intentIdentifiers: intentIdentifiers,
            hiddenPreviewsBodyPlaceholder: nil,
            categorySummaryFormat: nil,
            options: options
        )
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationCategory else { return false }
        return identifier == other.identifier && actions == other.actions && options == other.options
            && intentIdentifiers == other.intentIdentifiers
    }

    open override var hash: Int { identifier.hashValue }
}
