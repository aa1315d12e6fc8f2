import Foundation
import Testing

@testable import ActivityKit

@Suite("A Live Activity push's aps, as ActivityKit reads it")
struct LiveActivityPayloadTests {
    @Test("start with its attributes type, attributes, state, dates, alert, channel and token request")
    func start() throws {
        let payload = try #require(
            LiveActivityPayload(
                Data(
                    #"""
                    {"aps": {"event": "start", "timestamp": 1790000000, "content-state": {"score": "0-0"},
                     "attributes-type": "ScoreAttributes", "attributes": {"home": "Lions"},
                     "stale-date": 1790003600, "dismissal-date": 1790007200, "relevance-score": 0.5,
                     "alert": {"title": "Kick-off", "body": "Lions v Tigers"}, "sound": "whistle.caf",
                     "input-push-channel": "dHdvIHR3byB0d28=", "input-push-token": 1}}
                    """#.utf8)))
        #expect(payload.event == .start && payload.timestamp == 1_790_000_000)
        #expect(payload.attributesType == "ScoreAttributes")
        #expect(payload.contentState == Data(#"{"score":"0-0"}"#.utf8))
        #expect(payload.attributes == Data(#"{"home":"Lions"}"#.utf8))
        #expect(payload.staleDate == Date(timeIntervalSince1970: 1_790_003_600))
        #expect(payload.dismissalDate == Date(timeIntervalSince1970: 1_790_007_200))
        #expect(payload.relevanceScore == 0.5)
        #expect(payload.alert?.title == "Kick-off" && payload.alert?.body == "Lions v Tigers")
        #expect(payload.alert?.sound == "whistle.caf")
        #expect(payload.inputPushChannel == "dHdvIHR3byB0d28=" && payload.inputPushToken)
    }

    @Test(
        "not a Live Activity payload: no aps, no event, or an event that is not start, update or end",
        arguments: [#"{}"#, #"{"aps": {"alert": "hi"}}"#, #"{"aps": {"event": "pause"}}"#, "not json", #"{"aps": 3}"#])
    func notLiveActivity(json: String) {
        #expect(LiveActivityPayload(Data(json.utf8)) == nil)
    }

    @Test("an alert given as a string is its body; one with only loc keys shows the keys; an empty one is none")
    func alerts() throws {
        let string = try #require(LiveActivityPayload(Data(#"{"aps":{"event":"update","alert":"Goal!"}}"#.utf8)))
        #expect(string.alert?.title == "" && string.alert?.body == "Goal!")
        let keys = try #require(
            LiveActivityPayload(
                Data(#"{"aps":{"event":"update","alert":{"title-loc-key":"GOAL","loc-key":"SCORE"}}}"#.utf8)))
        #expect(keys.alert?.title == "GOAL" && keys.alert?.body == "SCORE")
        let empty = try #require(LiveActivityPayload(Data(#"{"aps":{"event":"end","alert":{}}}"#.utf8)))
        #expect(empty.alert == nil)
    }
}
