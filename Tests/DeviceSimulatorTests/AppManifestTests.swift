import APNSCore
import DeviceSimulator
import Foundation
import HeraldKit
import Testing
import UserNotifications

@Suite("App manifests")
struct AppManifestTests {
    @Test(
        "a whole manifest: authorization, foreground, seed 003 categories, content extension, service extension steps")
    func wholeManifest() throws {
        let json = """
            {
              "bundleID": "com.ritl.demo",
              "environment": "development",
              "authorization": {"granted": true, "options": ["alert", "badge", "sound"]},
              "foreground": true,
              "NotificationConfig": {
                "UNNotificationCategory": {"see": {"identifier": "seeCategory", "actions": ["see1"], "options": 0}},
                "UNNotificationAction": {"see1": {"identifier": "see1", "title": "I love it~", "options": 4}}
              },
              "contentExtension": {"UNNotificationExtensionCategory": "seeCategory",
                                   "UNNotificationExtensionInitialContentSizeRatio": 0.5},
              "serviceExtension": [
                {"rewrite": {"title": "Rewritten", "body": "by the extension"}},
                {"attachFrom": "image"},
                {"decrypt": "secret"}
              ]
            }
            """
        let manifest = try AppManifest(data: Data(json.utf8))
        #expect(manifest.bundleID == "com.ritl.demo")
        #expect(manifest.environment == .development)
        #expect(manifest.authorization == AppManifest.Authorization(granted: true, options: [.alert, .badge, .sound]))
        #expect(manifest.foreground)
        #expect(manifest.notificationConfig?.makeCategories().first?.identifier == "seeCategory")
        #expect(manifest.contentExtension?.categories == ["seeCategory"])
        #expect(manifest.contentExtension?.initialContentSizeRatio == 0.5)
        #expect(
            manifest.serviceExtension == [
                .rewrite(title: "Rewritten", subtitle: nil, body: "by the extension"),
                .attachFrom(userInfoKey: "image"),
                .decrypt(userInfoKey: "secret"),
            ])
    }

    @Test("only the bundle ID is required: development, authorized for alert, badge and sound, background")
    func defaults() throws {
        let manifest = try AppManifest(data: Data(#"{"bundleID": "com.example.app"}"#.utf8))
        #expect(manifest.environment == .development)
        #expect(manifest.authorization.granted)
        #expect(manifest.authorization.options == [.alert, .badge, .sound])
        #expect(!manifest.foreground)
        #expect(manifest.notificationConfig == nil)
        #expect(manifest.serviceExtension.isEmpty)
    }

    @Test(
        "a wrong manifest names the field and says what is wrong",
        arguments: [
            (#"{"environment": "development"}"#, "bundleID is missing"),
            (#"{"bundleID": "com example"}"#, "bundleID"),
            (#"{"bundleID": "com.example.app", "environment": "staging"}"#, "staging"),
            (#"{"bundleID": "com.example.app", "authorization": {"granted": true, "options": ["loud"]}}"#, "loud"),
            (#"{"bundleID": "com.example.app", "serviceExtension": [{"shout": "x"}]}"#, "serviceExtension[0]"),
            (#"{"bundleID": "com.example.app", "foreground": "yes"}"#, "foreground"),
            ("{", "the manifest"),
        ])
    func errors(json: String, mentions: String) {
        #expect {
            try AppManifest(data: Data(json.utf8))
        } throws: { error in
            (error as? AppManifestError)?.message.contains(mentions) == true
        }
    }
}
