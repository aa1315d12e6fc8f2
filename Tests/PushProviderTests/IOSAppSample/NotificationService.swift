import Foundation
import HeraldKit
import UserNotifications

/// The Notification Service Extension (its `NSExtensionPrincipalClass`): reports the push, opens its end-to-end
/// fields, and reports what it hands to the system.
final class NotificationService: UNNotificationServiceExtension {
    private let herald = Herald.shared
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttempt: UNMutableNotificationContent?

    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        herald.didReceive(request)
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            return contentHandler(request.content)
        }
        self.contentHandler = contentHandler
        bestAttempt = content
        herald.openEncryptedFields(in: content)
        herald.willHand(content, for: request)
        contentHandler(content)
    }

    override func serviceExtensionTimeWillExpire() {
        guard let contentHandler, let bestAttempt else { return }
        herald.reportOutcome("extensionTimeout", for: bestAttempt)
        contentHandler(bestAttempt)
    }
}
