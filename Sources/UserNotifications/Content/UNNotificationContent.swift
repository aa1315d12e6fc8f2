public import Foundation

/// What a notification shows and carries: title, subtitle, body, badge, sound, category, thread, attachments and the
/// app's own data. Immutable; `mutableCopy()` gives an independent ``UNMutableNotificationContent``.
///
/// ```swift
/// let content = request.content.mutableCopy() as? UNMutableNotificationContent
/// ```
// Safety: instances of this class are never mutated after creation; the mutable subclass, as on iOS, must not be
// mutated from two threads at once.
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    var storage: Storage

    /// Empty content.
    public override init() {
        storage = Storage()
        super.init()
    }

    init(storage: Storage) {
        self.storage = storage
        super.init()
    }

    /// The title, shown in bold.
    open var title: String { storage.title }
    /// A second line under the title.
    open var subtitle: String { storage.subtitle }
    /// The message.
    open var body: String { storage.body }
    /// The number to show on the app's icon: `nil` leaves it, 0 removes it.
    open var badge: NSNumber? { storage.badge }
    /// The sound to play, or `nil` for none.
    open var sound: UNNotificationSound? { storage.sound }
    /// The identifier of the registered category whose actions the notification offers.
    open var categoryIdentifier: String { storage.categoryIdentifier }
    /// Notifications with the same thread identifier are grouped.
    open var threadIdentifier: String { storage.threadIdentifier }
    /// The app's own data; for a remote notification, the whole payload (`aps` included).
    open var userInfo: [AnyHashable: Any] { storage.userInfo }
    /// Files shown with the notification (images, audio, movies).
    open var attachments: [UNNotificationAttachment] { storage.attachments }
    /// The launch image shown when the notification opens the app.
    open var launchImageName: String { storage.launchImageName }
    /// The window a notification brings forward.
    open var targetContentIdentifier: String? { storage.targetContentIdentifier }
    /// How urgently the notification interrupts the person.
    open var interruptionLevel: UNNotificationInterruptionLevel { storage.interruptionLevel }
    /// 0 to 1: how the system ranks the notification in a summary.
    open var relevanceScore: Double { storage.relevanceScore }
    /// The Focus filter criteria the notification matches.
    open var filterCriteria: String? { storage.filterCriteria }
    /// The text inserted into the category's summary format.
    open var summaryArgument: String { storage.summaryArgument }
    /// How many items the notification stands for in a summary; 1 by default, never 0.
    open var summaryArgumentCount: Int { storage.summaryArgumentCount }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any { UNNotificationContent(storage: storage) }

    /// An independent mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any { UNMutableNotificationContent(storage: storage) }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationContent else { return false }
        return storage == other.storage
    }

    open override var hash: Int { storage.title.hashValue ^ storage.body.hashValue }

    open override var description: String {
        "<UNNotificationContent title: \"\(title)\", subtitle: \"\(subtitle)\", body: \"\(body)\", "
            + "categoryIdentifier: \(categoryIdentifier), attachments: \(attachments.count)>"
    }
}

extension UNNotificationContent {
    /// The fields of a content, shared by the immutable and mutable classes.
    struct Storage: Equatable {
        var title = ""
        var subtitle = ""
        var body = ""
        var badge: NSNumber?
        var sound: UNNotificationSound?
        var categoryIdentifier = ""
        var threadIdentifier = ""
        var userInfo: [AnyHashable: Any] = [:]
        var attachments: [UNNotificationAttachment] = []
        var launchImageName = ""
        var targetContentIdentifier: String?
        var interruptionLevel: UNNotificationInterruptionLevel = .active
        var relevanceScore = 0.0
        var filterCriteria: String?
        var summaryArgument = ""
        var summaryArgumentCount = 1

        static func == (lhs: Storage, rhs: Storage) -> Bool {
            lhs.title == rhs.title && lhs.subtitle == rhs.subtitle && lhs.body == rhs.body && lhs.badge == rhs.badge
                && lhs.sound == rhs.sound && lhs.categoryIdentifier == rhs.categoryIdentifier
                && lhs.threadIdentifier == rhs.threadIdentifier
                && NSDictionary(dictionary: lhs.userInfo).isEqual(to: rhs.userInfo)
                && lhs.attachments == rhs.attachments && lhs.launchImageName == rhs.launchImageName
                && lhs.targetContentIdentifier == rhs.targetContentIdentifier
                && lhs.interruptionLevel == rhs.interruptionLevel && lhs.relevanceScore == rhs.relevanceScore
                && lhs.filterCriteria == rhs.filterCriteria && lhs.summaryArgument == rhs.summaryArgument
                && lhs.summaryArgumentCount == rhs.summaryArgumentCount
        }
    }
}
