import Testing
import UserNotificationsUI

/// A content extension written as for iOS: `import UserNotificationsUI` alone brings the protocol and the types it
/// uses (UNNotification, UNNotificationResponse), as Apple's templates expect.
final class ScoreContentExtension: UNNotificationContentExtension {
    var shown: [String] = []

    func didReceive(_ notification: UNNotification) {
        shown.append(notification.request.content.title)
    }
}

/// `ScoreContentExtension` above compiling is half the test: the protocol and the types its method names come through
/// `import UserNotificationsUI` alone.
@Suite("UserNotificationsUI: the module content extensions import")
struct ContentExtensionImportTests {
    @Test("the response options and play/pause button types have Apple's raw values")
    func rawValues() {
        #expect(UNNotificationContentExtensionResponseOption.doNotDismiss.rawValue == 0)
        #expect(UNNotificationContentExtensionResponseOption.dismiss.rawValue == 1)
        #expect(UNNotificationContentExtensionResponseOption.dismissAndForwardAction.rawValue == 2)
        #expect(UNNotificationContentExtensionMediaPlayPauseButtonType.none.rawValue == 0)
        #expect(UNNotificationContentExtensionMediaPlayPauseButtonType.default.rawValue == 1)
        #expect(UNNotificationContentExtensionMediaPlayPauseButtonType.overlay.rawValue == 2)
    }
}
