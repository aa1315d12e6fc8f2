public import Foundation
import Synchronization

/// An app's notification center: permission, categories, scheduling, and the pending and delivered notifications.
///
/// `current()` is the app's center, as on iOS. A simulated device makes one per app with
/// ``init(configuration:clock:timer:)``, whose clock decides when triggers fire.
// Safety: every mutable field lives in `state`, a Mutex; delegates and extensions are only called outside the lock.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    /// How a center behaves where iOS's behaviour is unsettled.
    public struct Configuration: Sendable {
        /// The app's bundle identifier.
        public var bundleIdentifier = "com.example.app"
        /// Where attachments are moved; a temporary folder when `nil`.
        public var dataStore: URL?
        /// The most pending requests an app keeps (64 on iOS).
        public var pendingLimit = 64
        /// Which requests stay when there are more than ``pendingLimit``.
        public var pendingRetention = PendingRetention.mostRecentlyAdded
        /// What `add` does when the app is not authorized.
        public var unauthorizedAdd = UnauthorizedAdd.fail
        /// Whether the device supports content extensions.
        public var supportsContentExtensions = true
        /// How long the delegate has to call `willPresent`'s completion handler before the notification is
        /// delivered unpresented, as iOS does with a handler "not called in a timely manner".
        public var delegateDeadline: Duration = .seconds(5)

        public init() {}
    }

    /// Which pending requests stay when there are too many: the most recently added (observed on iOS 18) or the
    /// soonest to fire (Apple's UILocalNotification documentation).
    public enum PendingRetention: Sendable { case mostRecentlyAdded, soonestFiring }

    /// What `add` does without authorization: fail with `notificationsNotAllowed` (Apple's documentation) or succeed
    /// without keeping the request (observed on iOS 18).
    public enum UnauthorizedAdd: Sendable { case fail, dropSilently }

    struct PendingEntry {
        var request: UNNotificationRequest
        var addedAt: Date
        var nextFire: Date?
    }

    struct State {
        var delegate: DelegateBox = DelegateBox()
        var status = UNAuthorizationStatus.notDetermined { didSet { onChange?() } }
        var granted: UNAuthorizationOptions = [] { didSet { onChange?() } }
        var answer = UNAuthorizationAnswer.allow
        var foreground = false
        var categories: Set<UNNotificationCategory> = [] { didSet { onChange?() } }
        var pending: [PendingEntry] = [] { didSet { onChange?() } }
        var delivered: [UNNotification] = [] { didSet { onChange?() } }
        var badge = 0 { didSet { onChange?() } }
        var inside: [String: Bool] = [:]
        var contentExtensions: [ContentExtensionRegistration] = []
        /// Called (under the lock: keep it quick) when what the person sees may have changed: the pending and
        /// delivered notifications, the badge, the permission, the categories.
        var onChange: (@Sendable () -> Void)?
    }

    /// The center's configuration.
    public let configuration: Configuration
    /// The clock triggers are judged by.
    public let clock: any NotificationClock
    /// The clock deadlines (the delegate's) are measured on.
    let timer: any Clock<Duration>
    let state = Mutex(State())
    let attachmentStore: AttachmentStore

    /// A center for one app.
    ///
    /// - Parameters:
    ///   - configuration: how the center behaves.
    ///   - clock: the wall clock triggers are judged by.
    ///   - timer: the clock deadlines are measured on; pass the same ``ManualClock`` as `clock` in tests.
    public init(
        configuration: Configuration = Configuration(),
        clock: any NotificationClock = SystemNotificationClock(),
        timer: any Clock<Duration> = ContinuousClock()
    ) {
        self.configuration = configuration
        self.clock = clock
        self.timer = timer
        self.attachmentStore = AttachmentStore(
            root: configuration.dataStore
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("UNAttachments-\(UUID().uuidString)")
        )
        super.init()
    }

    private static let shared = UNUserNotificationCenter()

    /// Calls `onChange` from now on whenever what the person sees may have changed (pending and delivered
    /// notifications, badge, permission, categories): how a simulated device tells whoever watches its screen. It is
    /// called while the center is locked, so it must only note the change (never call the center).
    package func observeChanges(_ onChange: @escaping @Sendable () -> Void) {
        state.withLock { $0.onChange = onChange }
    }

    /// The app's notification center.
    open class func current() -> UNUserNotificationCenter { shared }

    /// The object that decides foreground presentation and handles responses. Held weakly, as on iOS.
    open var delegate: (any UNUserNotificationCenterDelegate)? {
        get { state.withLock { $0.delegate.value } }
        set { state.withLock { $0.delegate = DelegateBox(newValue) } }
    }

    /// Whether the device supports content extensions.
    open var supportsContentExtensions: Bool { configuration.supportsContentExtensions }

    /// How the simulated person answers the next authorization prompt.
    public var authorizationAnswer: UNAuthorizationAnswer {
        get { state.withLock { $0.answer } }
        set { state.withLock { $0.answer = newValue } }
    }

    /// Whether the app is in the foreground (then `willPresent` decides presentation).
    public var isAppInForeground: Bool {
        get { state.withLock { $0.foreground } }
        set { state.withLock { $0.foreground = newValue } }
    }

    /// The number on the app's icon.
    public var badgeCount: Int { state.withLock { $0.badge } }
}

/// A weak reference to the delegate, as iOS holds it.
// Safety: only read and written inside the center's Mutex.
struct DelegateBox: @unchecked Sendable {
    weak var value: (any UNUserNotificationCenterDelegate)?

    init(_ value: (any UNUserNotificationCenterDelegate)? = nil) {
        self.value = value
    }
}
