/// What a content extension asks the system to do after it handled an action.
public enum UNNotificationContentExtensionResponseOption: UInt, Sendable, Hashable {
    /// Keep the notification interface; the extension handled the action.
    case doNotDismiss = 0
    /// Close the notification interface; the extension handled the action.
    case dismiss = 1
    /// Close the interface and forward the action to the app.
    case dismissAndForwardAction = 2
}

/// The play/pause button a content extension may ask for.
public enum UNNotificationContentExtensionMediaPlayPauseButtonType: UInt, Sendable, Hashable {
    case none = 0
    case `default` = 1
    case overlay = 2
}

/// A Notification Content Extension: custom UI for the notifications of its categories.
///
/// There is no UIKit on Linux: an extension shows what it wants through ``NotificationContentRendering``, a view
/// model that devices and the console render. Implement `didReceive(_:completionHandler:)` to handle actions
/// yourself; without it, actions go to the app (the default forwards them).
public protocol UNNotificationContentExtension: AnyObject {
    /// Called with the notification to show, and again for each new one in the same thread while visible.
    func didReceive(_ notification: UNNotification)
    /// Called when the person chooses an action while the extension is visible.
    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
    )
    /// Whether the extension handles actions itself (implements `didReceive(_:completionHandler:)`).
    var handlesResponses: Bool { get }
}

extension UNNotificationContentExtension {
    public func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        completion(.dismissAndForwardAction)
    }

    public var handlesResponses: Bool { true }
}

/// What a content extension shows, for a device or the console to render: Herald's stand-in for the view
/// controller's view.
public struct NotificationContentView: Sendable, Hashable {
    /// The title (replaces the app name when the extension overrides the default title).
    public var title: String?
    /// The main text.
    public var body: String?
    /// An image file to show.
    public var imagePath: String?
    /// Named labels, for example `["contentLabel": "Confirm"]`.
    public var labels: [String: String]

    public init(title: String? = nil, body: String? = nil, imagePath: String? = nil, labels: [String: String] = [:]) {
        self.title = title
        self.body = body
        self.imagePath = imagePath
        self.labels = labels
    }
}

/// A content extension that can say what it shows.
public protocol NotificationContentRendering: UNNotificationContentExtension {
    /// What the extension shows now.
    var contentView: NotificationContentView { get }
}
