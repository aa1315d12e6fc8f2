import CategoryConfig
import Foundation
import HeraldKit
import Testing
import UserNotifications

@Suite("NotificationConfig: seed 003's dynamic categories")
struct NotificationConfigTests {
    /// Seed 003's configuration, as the article prints it (tabs and all), plus a text-input action.
    let seedJSON = """
        {
        	 "NotificationConfig": {
                "UNNotificationCategory": {
                    "seeCategory": {
                        "identifier": "seeCategory",
                        "actions": ["see1","see2"],
                        "options": 0
                    },
                    "replyCategory": {"identifier": "replyCategory", "actions": ["reply", "missing"], "options": 1}
                },
                "UNNotificationAction": {
                    "see1": {
                        "identifier": "see1",
                        "title": "I love it~",
                        "options": 4
                    },
        			"see2": {
                        "identifier": "see2",
                        "title": "I dont't care~",
                        "options": 4
                    },
                    "reply": {"identifier": "reply", "title": "Reply", "options": 0,
                              "textInputButtonTitle": "Send", "textInputPlaceholder": "Say something"}
                }
            }
        }
        """

    @Test("the seed's file becomes its categories and actions, with numeric options and a text-input action")
    func seedConfiguration() throws {
        let config = try NotificationConfig(data: Data(seedJSON.utf8))
        let categories = Dictionary(uniqueKeysWithValues: config.makeCategories().map { ($0.identifier, $0) })
        let see = try #require(categories["seeCategory"])
        #expect(see.actions.map(\.identifier) == ["see1", "see2"])
        #expect(see.actions.map(\.title) == ["I love it~", "I dont't care~"])
        #expect(see.actions.allSatisfy { $0.options == .foreground })
        #expect(see.options == [])
        let reply = try #require(categories["replyCategory"])
        #expect(reply.options == .customDismissAction)
        #expect(reply.actions.count == 1, "an action key with no action is skipped, as in the seed")
        let text = try #require(reply.actions.first as? UNTextInputNotificationAction)
        #expect(text.textInputButtonTitle == "Send")
        #expect(text.textInputPlaceholder == "Say something")
    }

    @Test("the inner object alone is read too, and the seed's form survives a round trip")
    func roundTrip() throws {
        let config = try NotificationConfig(data: Data(seedJSON.utf8))
        #expect(try NotificationConfig(data: config.encoded()) == config)
        let inner = #"{"UNNotificationCategory": {"c": {"identifier": "c", "actions": []}}}"#
        #expect(try NotificationConfig(data: Data(inner.utf8)).categories["c"]?.identifier == "c")
    }

    @Test("a center registers the categories it was given")
    func registeredWithCenter() async throws {
        let center = UNUserNotificationCenter()
        let categories = try NotificationConfig(data: Data(seedJSON.utf8)).makeCategories()
        center.setNotificationCategories(categories)
        #expect(await center.notificationCategories() == categories)
    }

    @Test(
        "a malformed configuration says which part is wrong",
        arguments: [
            (#"{"NotificationConfig": {"UNNotificationAction": {"a": {"title": "x"}}}}"#, "identifier"),
            (
                #"{"NotificationConfig": {"UNNotificationCategory": {"c": {"identifier": "c", "actions": [], "options": "0"}}}}"#,
                "options"
            ),
            ("not json", "not JSON"),
        ])
    func malformed(json: String, mentions: String) {
        #expect {
            try NotificationConfig(data: Data(json.utf8))
        } throws: { error in
            (error as? NotificationConfigError)?.message.contains(mentions) == true
        }
    }
}
