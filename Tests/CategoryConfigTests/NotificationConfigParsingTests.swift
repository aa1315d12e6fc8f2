import CategoryConfig
import Foundation
import Testing

@Suite("NotificationConfig read alone, as the provider checks it")
struct NotificationConfigParsingTests {
    @Test("the seed's wrapped form and the inner object alone read the same, and encoding reads back equal")
    func wrappedOrNot() throws {
        let inner = #"""
            {"UNNotificationCategory": {"see": {"identifier": "see", "actions": ["a1"], "options": 0}},
             "UNNotificationAction": {"a1": {"identifier": "a1", "title": "I love it~", "options": 4}}}
            """#
        let wrapped = try NotificationConfig(data: Data(#"{"NotificationConfig": \#(inner)}"#.utf8))
        let alone = try NotificationConfig(data: Data(inner.utf8))
        #expect(wrapped == alone)
        #expect(wrapped.categories["see"]?.actions == ["a1"])
        #expect(wrapped.actions["a1"]?.title == "I love it~")
        #expect(try NotificationConfig(data: wrapped.encoded()) == wrapped)
    }

    @Test(
        "what is malformed is named by its path",
        arguments: [
            (#"{"UNNotificationAction": {"a1": {"identifier": "a1"}}}"#, "UNNotificationAction.a1.title is missing"),
            (
                #"{"UNNotificationCategory": {"c": {"identifier": 3, "actions": []}}}"#,
                "UNNotificationCategory.c.identifier"
            ),
            ("[1]", "the configuration is not a JSON object"), ("not json", "not JSON"),
        ])
    func malformed(json: String, says: String) {
        #expect {
            _ = try NotificationConfig(data: Data(json.utf8))
        } throws: { error in
            (error as? NotificationConfigError)?.message.contains(says) == true
        }
    }
}
