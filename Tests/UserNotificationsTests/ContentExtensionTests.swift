import Foundation
import Testing
import UserNotifications
import UserNotificationsUI

/// Seed 004's content extension: shows the notification's title and body and its attachment; a text-input action
/// shows the typed text, Confirm shows "Confirm"; then it dismisses.
final class SeedContentExtension: NotificationContentRendering {
    var titleLabel = ""
    var contentLabel = ""
    var imagePath = "push_image"

    func didReceive(_ notification: UNNotification) {
        if let attachment = notification.request.content.attachments.first {
            imagePath = attachment.url.path
        }
        titleLabel = notification.request.content.title
        contentLabel = notification.request.content.body
    }

    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        if response.actionIdentifier == "action.input", let input = response as? UNTextInputNotificationResponse {
            contentLabel = input.userText
        } else if response.actionIdentifier == "action.confirm" {
            contentLabel = "Confirm"
        }
        completion(.dismiss)
    }

    var contentView: NotificationContentView {
        NotificationContentView(
            title: titleLabel, body: contentLabel, imagePath: imagePath, labels: ["contentLabel": contentLabel])
    }
}

/// An extension that answers every action with a fixed option.
final class FixedOptionExtension: UNNotificationContentExtension {
    let option: UNNotificationContentExtensionResponseOption
    init(_ option: UNNotificationContentExtensionResponseOption) { self.option = option }
    func didReceive(_ notification: UNNotification) {}
    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        completion(option)
    }
}

@Suite("Content extensions and response routing")
struct ContentExtensionTests {
    static let categoryID = "content1"

    func centerWithCategory(options: UNNotificationCategoryOptions = []) async throws -> (
        UNUserNotificationCenter, RecordingDelegate
    ) {
        let center = try await authorizedCenter()
        let confirm = UNNotificationAction(identifier: "action.confirm", title: "Confirm", options: [.foreground])
        let input = UNTextInputNotificationAction(
            identifier: "action.input", title: "Input", options: [], textInputButtonTitle: "Send",
            textInputPlaceholder: "say something")
        center.setNotificationCategories([
            UNNotificationCategory(
                identifier: Self.categoryID, actions: [confirm, input], intentIdentifiers: [], options: options)
        ])
        let delegate = RecordingDelegate(options: [])
        center.delegate = delegate
        _ = await center.deliverRemoteNotification(
            try pushRequest(
                #"{"aps":{"alert":{"title":"iOS远程消息，我是主标题！-title","body":"hello"},"category":"content1","badge":2}}"#,
                identifier: "n1")
        )
        return (center, delegate)
    }

    @Test("seed 004: the extension shows the typed text, then dismisses without forwarding")
    func seedTextInput() async throws {
        let (center, delegate) = try await centerWithCategory()
        let seedExtension = SeedContentExtension()
        center.installContentExtension(
            seedExtension,
            attributes: ContentExtensionAttributes(
                categories: [Self.categoryID], initialContentSizeRatio: 0.4, defaultContentHidden: true))
        let view = try #require(center.expand(notificationWithIdentifier: "n1"))
        #expect(view.title == "iOS远程消息，我是主标题！-title")
        #expect(view.body == "hello")
        let outcome = try await center.respond(
            toNotificationWithIdentifier: "n1", actionIdentifier: "action.input", userText: "on my way")
        #expect(outcome.response is UNTextInputNotificationResponse)
        #expect(outcome.contentExtensionOption == .dismiss)
        #expect(seedExtension.contentView.labels["contentLabel"] == "on my way")
        #expect(outcome.dismissed)
        #expect(!outcome.deliveredToApp)
        #expect(delegate.responses.isEmpty)
        #expect(await center.deliveredNotifications().isEmpty)
    }

    @Test(
        "each response option: doNotDismiss keeps it, dismiss closes it, dismissAndForwardAction also tells the app",
        arguments: [
            (UNNotificationContentExtensionResponseOption.doNotDismiss, false, false),
            (.dismiss, true, false), (.dismissAndForwardAction, true, true),
        ]
    )
    func responseOptions(option: UNNotificationContentExtensionResponseOption, dismissed: Bool, forwarded: Bool)
        async throws
    {
        let (center, delegate) = try await centerWithCategory()
        center.installContentExtension(
            FixedOptionExtension(option), attributes: ContentExtensionAttributes(categories: [Self.categoryID]))
        let outcome = try await center.respond(toNotificationWithIdentifier: "n1", actionIdentifier: "action.confirm")
        #expect(outcome.contentExtensionOption == option)
        #expect(outcome.dismissed == dismissed)
        #expect(outcome.deliveredToApp == forwarded)
        #expect(delegate.responses.map(\.actionIdentifier) == (forwarded ? ["action.confirm"] : []))
        #expect(await center.deliveredNotifications().isEmpty == dismissed)
    }

    @Test("without a content extension the app receives actions and the default action")
    func noExtension() async throws {
        let (center, delegate) = try await centerWithCategory()
        let outcome = try await center.respond(
            toNotificationWithIdentifier: "n1", actionIdentifier: UNNotificationDefaultActionIdentifier)
        #expect(outcome.deliveredToApp)
        #expect(delegate.responses.first?.actionIdentifier == "com.apple.UNNotificationDefaultActionIdentifier")
    }

    @Test("a dismiss reaches the app only for categories with customDismissAction", arguments: [false, true])
    func dismissAction(custom: Bool) async throws {
        let (center, delegate) = try await centerWithCategory(options: custom ? [.customDismissAction] : [])
        let outcome = try await center.respond(
            toNotificationWithIdentifier: "n1", actionIdentifier: UNNotificationDismissActionIdentifier)
        #expect(outcome.deliveredToApp == custom)
        #expect(delegate.responses.count == (custom ? 1 : 0))
    }

    @Test("responding to an unknown notification or action is an error that names it")
    func badResponses() async throws {
        let (center, _) = try await centerWithCategory()
        await #expect(throws: ResponseError.self) {
            try await center.respond(
                toNotificationWithIdentifier: "zz", actionIdentifier: UNNotificationDefaultActionIdentifier)
        }
        await #expect(throws: ResponseError.self) {
            try await center.respond(toNotificationWithIdentifier: "n1", actionIdentifier: "nope")
        }
    }

    @Test("Info.plist attributes: the category as a string or an array, with the optional keys")
    func attributes() throws {
        let seedPlist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>UNNotificationExtensionDefaultContentHidden</key><true/>
            <key>UNNotificationExtensionCategory</key><array><string>content1</string></array>
            <key>UNNotificationExtensionInitialContentSizeRatio</key><real>0.4</real>
            </dict></plist>
            """
        let seed = try ContentExtensionAttributes(infoPlist: Data(seedPlist.utf8))
        #expect(seed.categories == ["content1"])
        #expect(seed.initialContentSizeRatio == 0.4)
        #expect(seed.defaultContentHidden)
        #expect(!seed.overridesDefaultTitle)
        let template = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>NSExtension</key><dict>
            <key>NSExtensionAttributes</key><dict>
            <key>UNNotificationExtensionCategory</key><string>myNotificationCategory</string>
            <key>UNNotificationExtensionInitialContentSizeRatio</key><real>1</real>
            <key>UNNotificationExtensionUserInteractionEnabled</key><true/>
            <key>UNNotificationExtensionOverridesDefaultTitle</key><true/>
            </dict>
            <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.content-extension</string>
            </dict></dict></plist>
            """
        let parsed = try ContentExtensionAttributes(infoPlist: Data(template.utf8))
        #expect(parsed.categories == ["myNotificationCategory"])
        #expect(parsed.userInteractionEnabled)
        #expect(parsed.overridesDefaultTitle)
        #expect(throws: (any Error).self) {
            try ContentExtensionAttributes(infoPlist: Data("<plist version=\"1.0\"><dict/></plist>".utf8))
        }
    }
}
