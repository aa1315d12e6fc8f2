package import APNSCore
import Foundation
import UserNotifications

/// A delivered notification as the device API and the terminal show it.
public struct NotificationSnapshot: Sendable, Hashable, Encodable {
    /// The identifier to respond with (`apns-id` for a remote notification).
    public let id: String
    public let apnsID: String?
    public let bundleID: String
    /// The request identifier (the collapse ID when the push had one).
    public let requestIdentifier: String
    /// When it was delivered (ISO 8601).
    public let date: String
    public let title: String
    public let subtitle: String
    public let body: String
    public let badge: Int?
    public let sound: String?
    public let categoryIdentifier: String
    public let threadIdentifier: String
    package let attachments: [Attachment]
    /// The payload as the app sees it (after its service extension).
    package let userInfo: JSONValue
    /// The category's actions, in order.
    package let actions: [Action]
    /// What the content extension shows, when the category has one.
    package let contentExtension: ContentView?

    /// A file shown with the notification.
    package struct Attachment: Sendable, Hashable, Encodable {
        package let identifier: String
        package let type: String
        package let path: String
    }

    /// A button (or text field) under the notification.
    package struct Action: Sendable, Hashable, Encodable {
        package let identifier: String
        package let title: String
        /// `authenticationRequired`, `destructive`, `foreground`.
        package let options: [String]
        package let textInput: Bool
        package let textInputButtonTitle: String?
        package let textInputPlaceholder: String?
        /// The name of the image beside the title (iOS 15's `UNNotificationActionIcon`), when it has one.
        package let icon: String?
        /// `system` for an SF Symbol, `template` for an image of the app's bundle.
        package let iconKind: String?
    }

    /// The content extension's view.
    package struct ContentView: Sendable, Hashable, Encodable {
        package let title: String?
        package let body: String?
        package let imagePath: String?
        package let labels: [String: String]
    }

    init(
        id: String, apnsID: String?, bundleID: String, notification: UNNotification,
        category: UNNotificationCategory?, contentView: NotificationContentView?
    ) {
        let content = notification.request.content
        self.id = id
        self.apnsID = apnsID
        self.bundleID = bundleID
        requestIdentifier = notification.request.identifier
        date = notification.date.iso8601Milliseconds
        title = content.title
        subtitle = content.subtitle
        body = content.body
        badge = content.badge?.intValue
        sound = content.sound.map { $0.name?.rawValue ?? "default" }
        categoryIdentifier = content.categoryIdentifier
        threadIdentifier = content.threadIdentifier
        attachments = content.attachments.map {
            Attachment(identifier: $0.identifier, type: $0.type, path: $0.url.path)
        }
        userInfo = Self.json(content.userInfo)
        actions = (category?.actions ?? []).map { action in
            let text = action as? UNTextInputNotificationAction
            var options: [String] = []
            if action.options.contains(.authenticationRequired) { options.append("authenticationRequired") }
            if action.options.contains(.destructive) { options.append("destructive") }
            if action.options.contains(.foreground) { options.append("foreground") }
            return Action(
                identifier: action.identifier, title: action.title, options: options, textInput: text != nil,
                textInputButtonTitle: text?.textInputButtonTitle, textInputPlaceholder: text?.textInputPlaceholder,
                icon: action.icon?.imageName, iconKind: action.icon.map { $0.isSystemImage ? "system" : "template" })
        }
        contentExtension = contentView.map {
            ContentView(title: $0.title, body: $0.body, imagePath: $0.imagePath, labels: $0.labels)
        }
    }

    private static func json(_ userInfo: [AnyHashable: Any]) -> JSONValue {
        let object = Dictionary(userInfo.map { ("\($0.key)", $0.value) }) { _, last in last }
        return JSONValue(foundationValue: object) ?? .object(JSONObject())
    }
}
