import Foundation
import Synchronization

/// A content extension installed for its categories.
// Safety: the extension is only called by the response and display paths, one call at a time per response.
struct ContentExtensionRegistration: @unchecked Sendable {
    let contentExtension: any UNNotificationContentExtension
    let attributes: ContentExtensionAttributes
}

/// Where a response went.
public struct ResponseOutcome: Sendable {
    /// The response made.
    public let response: UNNotificationResponse
    /// The content extension's answer, when one handled the response.
    public let contentExtensionOption: UNNotificationContentExtensionResponseOption?
    /// Whether the app delegate received the response.
    public let deliveredToApp: Bool
    /// Whether the notification interface closed (and the notification left Notification Center).
    public let dismissed: Bool
}

/// A response that cannot be made.
public struct ResponseError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let message: String
    public var description: String { message }
}

extension UNUserNotificationCenter {
    /// Installs a content extension for the categories its Info.plist names.
    public func installContentExtension(
        _ contentExtension: any UNNotificationContentExtension,
        attributes: ContentExtensionAttributes
    ) {
        state.withLock {
            $0.contentExtensions.append(
                ContentExtensionRegistration(contentExtension: contentExtension, attributes: attributes))
        }
    }

    /// The content extension and its attributes for a category, when one is installed.
    func contentExtension(for category: String) -> ContentExtensionRegistration? {
        guard configuration.supportsContentExtensions, !category.isEmpty else { return nil }
        return state.withLock { $0.contentExtensions.first { $0.attributes.categories.contains(category) } }
    }

    /// Shows a delivered notification expanded: its category's content extension receives it.
    ///
    /// - Returns: what the extension shows, when it can say (``NotificationContentRendering``).
    public func expand(notificationWithIdentifier identifier: String) -> NotificationContentView? {
        guard let notification = state.withLock({ $0.delivered.first { $0.request.identifier == identifier } }),
            let registration = contentExtension(for: notification.request.content.categoryIdentifier)
        else { return nil }
        registration.contentExtension.didReceive(notification)
        return (registration.contentExtension as? any NotificationContentRendering)?.contentView
    }

    /// Responds to a delivered notification as the person would, and routes the response as iOS does: to the
    /// category's content extension first when it handles responses, then to the app delegate as the extension's
    /// option says. A dismiss reaches the delegate only for categories with `customDismissAction`.
    ///
    /// - Parameters:
    ///   - identifier: the delivered notification's request identifier.
    ///   - actionIdentifier: an action of its category, ``UNNotificationDefaultActionIdentifier`` or
    ///     ``UNNotificationDismissActionIdentifier``.
    ///   - userText: the text typed, for a text-input action.
    /// - Returns: where the response went: the extension's option, whether the app received it, whether it closed.
    /// - Throws: ``ResponseError`` when the notification is not delivered or the action is not in its category.
    public func respond(
        toNotificationWithIdentifier identifier: String,
        actionIdentifier: String,
        userText: String? = nil
    ) async throws -> ResponseOutcome {
        let response = try makeResponse(identifier, actionIdentifier, userText)
        let notification = response.notification
        let category = notification.request.content.categoryIdentifier
        var option: UNNotificationContentExtensionResponseOption?
        let isSystemAction = [UNNotificationDefaultActionIdentifier, UNNotificationDismissActionIdentifier]
            .contains(actionIdentifier)
        if !isSystemAction, let registration = contentExtension(for: category),
            registration.contentExtension.handlesResponses
        {
            option = await withCheckedContinuation { continuation in
                let once = CallOnce(continuation)
                registration.contentExtension.didReceive(response) { once.resume($0) }
            }
        }
        let forward: Bool
        switch option {
        case .doNotDismiss?: forward = false
        case .dismiss?: forward = false
        case .dismissAndForwardAction?: forward = true
        case nil:
            forward =
                actionIdentifier != UNNotificationDismissActionIdentifier
                || self.category(withIdentifier: category)?.options.contains(.customDismissAction) == true
        }
        let dismissed = option != .doNotDismiss
        if dismissed { removeDeliveredNotifications(withIdentifiers: [identifier]) }
        if forward, let delegate = self.delegate {
            await delegate.userNotificationCenter(self, didReceive: response)
        }
        return ResponseOutcome(
            response: response,
            contentExtensionOption: option,
            deliveredToApp: forward && self.delegate != nil,
            dismissed: dismissed
        )
    }

    private func makeResponse(_ identifier: String, _ actionIdentifier: String, _ userText: String?) throws
        -> UNNotificationResponse
    {
        guard let notification = state.withLock({ $0.delivered.first { $0.request.identifier == identifier } }) else {
            throw ResponseError(message: "no delivered notification has the identifier \(identifier)")
        }
        if [UNNotificationDefaultActionIdentifier, UNNotificationDismissActionIdentifier].contains(actionIdentifier) {
            return UNNotificationResponse(notification: notification, actionIdentifier: actionIdentifier)
        }
        let categoryID = notification.request.content.categoryIdentifier
        guard
            let action = category(withIdentifier: categoryID)?.actions.first(where: {
                $0.identifier == actionIdentifier
            })
        else {
            throw ResponseError(message: "the category '\(categoryID)' has no action '\(actionIdentifier)'")
        }
        if action is UNTextInputNotificationAction {
            return UNTextInputNotificationResponse(
                notification: notification,
                actionIdentifier: actionIdentifier,
                userText: userText ?? ""
            )
        }
        return UNNotificationResponse(notification: notification, actionIdentifier: actionIdentifier)
    }
}
