import CategoryConfig
import Foundation
import HeraldKit
import Testing
import UserNotifications

/// iOS 15's additions as an app uses them, written against Apple's declarations: action icons and the Scheduled
/// Summary settings. This file compiling is half the test.
@Suite("iOS 15: action icons and Scheduled Summary settings")
struct iOS15DeclarationsTests {
    /// An app's category code as written for iOS 15 (Apple's `UNNotificationActionIcon` article).
    static func categories() -> Set<UNNotificationCategory> {
        let like = UNNotificationAction(
            identifier: "like", title: "Like", options: [],
            icon: UNNotificationActionIcon(systemImageName: "hand.thumbsup"))
        let delete = UNNotificationAction(
            identifier: "delete", title: "Delete", options: [.destructive, .authenticationRequired],
            icon: UNNotificationActionIcon(templateImageName: "trash-template"))
        let plain = UNNotificationAction(identifier: "later", title: "Later", options: [], icon: nil)
        let reply = UNTextInputNotificationAction(
            identifier: "reply", title: "Reply", options: [],
            icon: UNNotificationActionIcon(systemImageName: "arrowshape.turn.up.left"),
            textInputButtonTitle: "Send", textInputPlaceholder: "Message")
        return [
            UNNotificationCategory(
                identifier: "message", actions: [like, delete, plain, reply], intentIdentifiers: [], options: [])
        ]
    }

    @Test("actions keep their icons through the center; equal icons are equal, a symbol is not a template")
    func actionIcons() async throws {
        let (center, _) = CenterTests().newCenter()
        center.setNotificationCategories(Self.categories())
        let actions = try #require(await center.notificationCategories().first?.actions)
        #expect(actions.map(\.identifier) == ["like", "delete", "later", "reply"])
        #expect(actions[0].icon == UNNotificationActionIcon(systemImageName: "hand.thumbsup"))
        #expect(actions[0].icon != UNNotificationActionIcon(templateImageName: "hand.thumbsup"))
        #expect(actions[1].icon?.imageName == "trash-template" && actions[1].icon?.isSystemImage == false)
        #expect(actions[2].icon == nil)
        let reply = try #require(actions[3] as? UNTextInputNotificationAction)
        #expect(reply.icon?.imageName == "arrowshape.turn.up.left" && reply.textInputButtonTitle == "Send")
        #expect(UNNotificationAction(identifier: "a", title: "A").icon == nil)
    }

    @Test("dynamic categories (JSON) give actions an SF Symbol or a template image")
    func iconsFromJSON() throws {
        let config = try NotificationConfig(
            data: Data(
                #"""
                {"NotificationConfig": {
                  "UNNotificationCategory": {"c": {"identifier": "c", "actions": ["a", "b"]}},
                  "UNNotificationAction": {"a": {"identifier": "a", "title": "A", "systemImageName": "star"},
                                           "b": {"identifier": "b", "title": "B", "templateImageName": "logo",
                                                 "textInputButtonTitle": "Go", "textInputPlaceholder": "…"}}}}
                """#.utf8))
        let actions = try #require(config.makeCategories().first?.actions)
        #expect(actions[0].icon == UNNotificationActionIcon(systemImageName: "star"))
        #expect(actions[1].icon == UNNotificationActionIcon(templateImageName: "logo"))
        #expect(actions[1] is UNTextInputNotificationAction)
        // Written back with the icons: the provider serves the same JSON it was given.
        let again = try NotificationConfig(data: config.encoded())
        #expect(again == config)
    }

    @Test("scheduledDeliverySetting and directMessagesSetting: not supported before the prompt, then off")
    func summarySettings() async throws {
        let (center, _) = CenterTests().newCenter()
        let before = await center.notificationSettings()
        #expect(before.scheduledDeliverySetting == .notSupported)
        #expect(before.directMessagesSetting == .notSupported)
        _ = try await center.requestAuthorization(options: [.alert, .sound])
        center.getNotificationSettings { settings in
            #expect(settings.scheduledDeliverySetting == .disabled)
            #expect(settings.directMessagesSetting == .notSupported)
        }
    }
}
