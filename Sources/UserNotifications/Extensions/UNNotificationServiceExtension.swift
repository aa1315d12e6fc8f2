public import Foundation

/// The base class of a Notification Service Extension: it may change a remote notification's content (download an
/// attachment, decrypt, rewrite) before it is shown. Subclass it exactly as on iOS.
// Safety: the host calls `didReceive` once and `serviceExtensionTimeWillExpire` at most once; as on iOS, subclasses
// that keep state touched from their own background work must protect it themselves.
open class UNNotificationServiceExtension: NSObject, @unchecked Sendable {
    public override init() {
        super.init()
    }

    /// Called with the request; call `contentHandler` with the content to show, within the time limit.
    open func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        contentHandler(request.content)
    }

    /// Called just before the time limit: deliver the best attempt now, or the original content is shown.
    open func serviceExtensionTimeWillExpire() {}
}
