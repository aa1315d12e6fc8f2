public import Foundation

/// The base class of a Notification Service Extension: it may change a remote notification's content (download an
/// attachment, decrypt, rewrite) before it is shown. Subclass it exactly as on iOS.
///
/// Not `Sendable`, as on iOS, so subclasses written for iOS compile unchanged; ``ServiceExtensionHost`` hands it
/// between tasks itself.
open class UNNotificationServiceExtension: NSObject {
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
