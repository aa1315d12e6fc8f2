import Foundation
import Testing
import UserNotifications

@Suite("Remote payloads become requests as iOS maps them")
struct RemotePayloadTests {
    @Test("a string alert is the body; every aps key maps; userInfo has every key")
    func mapping() throws {
        let request = try pushRequest(
            #"{"aps":{"alert":"This is My message Yue.","badge":1,"sound":"default","category":"helloIdentifier","thread-id":"t1","target-content-id":"w","interruption-level":"time-sensitive","relevance-score":0.5,"filter-criteria":"work","mutable-content":1},"image":"https://a/b.jpg","n":3}"#,
            identifier: "apns-1"
        )
        let content = request.content
        #expect(request.identifier == "apns-1")
        #expect(request.trigger is UNPushNotificationTrigger)
        #expect(content.body == "This is My message Yue.")
        #expect(content.badge == 1)
        #expect(content.sound == UNNotificationSound.default)
        #expect(content.categoryIdentifier == "helloIdentifier")
        #expect(content.threadIdentifier == "t1")
        #expect(content.targetContentIdentifier == "w")
        #expect(content.interruptionLevel == .timeSensitive)
        #expect(content.relevanceScore == 0.5)
        #expect(content.filterCriteria == "work")
        #expect(content.userInfo["image"] as? String == "https://a/b.jpg")
        #expect(content.userInfo["n"] as? Int == 3)
        #expect((content.userInfo["aps"] as? [String: Any])?["mutable-content"] as? Int == 1)
    }

    @Test("a dictionary alert maps title, subtitle, body and launch image")
    func dictionaryAlert() throws {
        let content = try pushRequest(
            #"{"aps":{"alert":{"title":"hello","subtitle":"Session 01","body":"it is a beautiful day","launch-image":"Stitch.png"}}}"#
        ).content
        #expect(content.title == "hello")
        #expect(content.subtitle == "Session 01")
        #expect(content.body == "it is a beautiful day")
        #expect(content.launchImageName == "Stitch.png")
    }

    @Test("localization keys are looked up with their arguments; a missing key shows itself")
    func localization() throws {
        let payload = Data(
            #"{"aps":{"alert":{"title-loc-key":"T","loc-key":"GAME_PLAY_REQUEST_FORMAT","loc-args":["Shelly","Rick"],"subtitle-loc-key":"MISSING"}}}"#
                .utf8)
        let strings = ["GAME_PLAY_REQUEST_FORMAT": "%@ and %@ have invited you to play Monopoly", "T": "100%% %2$@"]
        let content = try UNNotificationRequest(identifier: "l", apnsPayload: payload, localizedStrings: strings)
            .content
        #expect(content.body == "Shelly and Rick have invited you to play Monopoly")
        #expect(content.title == "100% ")
        #expect(content.subtitle == "MISSING")
    }

    @Test("a badge that is not a number is ignored, as iOS ignores it; true is not 1")
    func badBadges() throws {
        #expect(try pushRequest(#"{"aps":{"badge":"1"}}"#).content.badge == nil)
        #expect(try pushRequest(#"{"aps":{"badge":true}}"#).content.badge == nil)
        #expect(try pushRequest(#"{"aps":{"badge":0}}"#).content.badge == 0)
    }

    @Test(
        "numbers past Int's range map to the nearest value instead of crashing the device",
        arguments: ["1e30", "9223372036854775808", "1.7976931348623157e308"])
    func extremeNumbers(number: String) throws {
        let content = try pushRequest(
            #"{"aps":{"badge":\#(number),"relevance-score":\#(number),"alert":{"body":"b","summary-arg":"x","summary-arg-count":\#(number)}}}"#
        ).content
        #expect(content.badge?.intValue == Int.max)
        #expect(content.summaryArgumentCount == Int.max)
        #expect(content.relevanceScore == 1)
    }

    @Test("a critical sound dictionary")
    func criticalSound() throws {
        let sound = try #require(
            try pushRequest(#"{"aps":{"sound":{"critical":1,"name":"alarm.caf","volume":0.5}}}"#).content.sound)
        #expect(sound.isCritical)
        #expect(sound.name == "alarm.caf")
        #expect(sound.volume == 0.5)
    }

    @Test("a payload that is not a JSON object is an error")
    func invalid() {
        #expect(throws: UNPayloadError.self) { try pushRequest("[1]") }
        #expect(throws: UNPayloadError.self) { try pushRequest("{") }
    }

    @Test("mutableCopy gives an independent mutable content; copy is immutable")
    func copies() throws {
        let original = try pushRequest(#"{"aps":{"alert":{"title":"Hello"}}}"#).content
        let mutable = try #require(original.mutableCopy() as? UNMutableNotificationContent)
        mutable.title = "Changed"
        #expect(original.title == "Hello")
        #expect(!(mutable.copy() is UNMutableNotificationContent))
        let request = UNNotificationRequest(identifier: "r", content: mutable, trigger: nil)
        mutable.title = "Later"
        #expect(request.content.title == "Changed")
    }
}
