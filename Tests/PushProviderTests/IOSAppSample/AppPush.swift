import Foundation
import HeraldKit
import UserNotifications

/// The app's side of push notifications: the AppDelegate calls it, and it is the notification center's delegate.
final class AppPush: NSObject, UNUserNotificationCenterDelegate {
    let herald = Herald.shared

    /// The categories the app declares itself; the provider's are set beside them.
    static let ownCategories: Set<UNNotificationCategory> = [
        UNNotificationCategory(
            identifier: "chat",
            actions: [
                UNTextInputNotificationAction(
                    identifier: "reply", title: "Reply", options: [], textInputButtonTitle: "Send",
                    textInputPlaceholder: "Message")
            ], intentIdentifiers: [])
    ]

    /// At launch: be the delegate, set the provider's categories beside the app's own, send receipts left over.
    func launched(center: UNUserNotificationCenter = .current()) async {
        center.delegate = self
        do {
            try await herald.syncCategories(keeping: Self.ownCategories, center: center)
        } catch {
            print("Herald categories: \(error)")  // the last set stays
        }
        await herald.sendReceipts()
    }

    /// From `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`, with the signed-in user (the app's
    /// server got `userToken` from the provider's `POST /v1/users/{userID}/token`).
    func registered(deviceToken: Data, userID: String?, userToken: String?) async {
        do {
            try await herald.register(
                deviceToken: deviceToken, DeviceRegistration(userID: userID, userToken: userToken))
        } catch {
            print("Herald registration: \(error)")  // iOS hands the token again at the next launch
        }
    }

    /// From `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`: a push that says the categories
    /// changed makes the app fetch them.
    func received(_ userInfo: [AnyHashable: Any], center: UNUserNotificationCenter = .current()) async {
        _ = try? await herald.didReceiveRemoteNotification(userInfo, keeping: Self.ownCategories, center: center)
    }

    /// When the user signs out: no push for them reaches this phone any more.
    func signedOut() async {
        try? await herald.signOut()
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        herald.willPresent(notification)
        return [.banner, .list, .sound]
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        herald.didReceive(response)
    }
}
