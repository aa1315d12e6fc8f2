import Foundation
import Testing

@testable import APNSCore

/// One lint case: a payload and headers, and the rules that must fire.
struct LintCase: CustomTestStringConvertible, Sendable {
    var name: String
    var payload: String
    var pushType: String? = nil
    var priority: String? = nil
    var topic: String? = nil
    var expiration: String? = nil
    var expected: [String]
    var testDescription: String { name }
}

@Suite("Lint: what APNs rejects and what iOS mishandles")
struct APNSLinterTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let cases: [LintCase] = [
        LintCase(
            name: "Apple's game invitation is clean",
            payload:
                #"{"aps":{"alert":{"title":"Game Request","subtitle":"Five Card Draw","body":"Bob wants to play poker"},"category":"GAME_INVITATION"},"gameID":"12345678"}"#,
            expected: []),
        LintCase(
            name: "badge and sound only is clean",
            payload: #"{"aps":{"badge":9,"sound":"bingbong.aiff"},"messageID":"ABCDEFGHIJ"}"#, expected: []),
        LintCase(
            name: "localized alert is clean",
            payload: #"{"aps":{"alert":{"loc-key":"GAME_PLAY_REQUEST_FORMAT","loc-args":["Shelly","Rick"]}}}"#,
            expected: []),
        LintCase(
            name: "background push, type and priority right",
            payload: #"{"aps":{"content-available":1},"acme1":"bar","acme2":42}"#, pushType: "background",
            priority: "5", expected: []),
        LintCase(
            name: "encrypted message for the service extension",
            payload:
                #"{"aps":{"category":"SECRET","mutable-content":1,"alert":{"title":"Secret Message!","body":"(Encrypted)"}},"ENCRYPTED_DATA":"..."}"#,
            expected: []),
        LintCase(
            name: "critical sound dictionary",
            payload:
                #"{"aps":{"alert":"x","sound":{"critical":1,"name":"default","volume":0.5},"interruption-level":"critical","relevance-score":0.7}}"#,
            expected: []),
        LintCase(
            name: "live activity update",
            payload: #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"level":0.0}}}"#,
            pushType: "liveactivity", topic: "com.example.app.push-type.liveactivity", expected: []),
        LintCase(
            name: "live activity start with localized title",
            payload:
                #"{"aps":{"timestamp":1685952000,"event":"start","content-state":{},"attributes-type":"A","attributes":{},"alert":{"title":{"loc-key":"T","loc-args":["x"]},"body":"b","sound":"default"}}}"#,
            pushType: "liveactivity", expected: []),
        LintCase(
            name: "voip payloads are the app's own", payload: #"{"caller":"Bob"}"#, pushType: "voip",
            topic: "com.example.app.voip", expected: []),
        LintCase(
            name: "badge as a string", payload: #"{"aps":{"alert":"x","badge":"1"}}"#, expected: ["badge-not-a-number"]),
        LintCase(name: "negative badge", payload: #"{"aps":{"badge":-1}}"#, expected: ["badge-not-a-count"]),
        LintCase(name: "fractional badge", payload: #"{"aps":{"badge":1.5}}"#, expected: ["badge-not-a-count"]),
        LintCase(
            name: "mutable-content without alert text", payload: #"{"aps":{"mutable-content":1,"badge":1}}"#,
            expected: ["mutable-content-without-alert"]),
        LintCase(
            name: "mutable-content with an empty alert body",
            payload: #"{"aps":{"mutable-content":1,"alert":{"body":""}}}"#,
            expected: ["alert-without-text", "mutable-content-without-alert"]),
        LintCase(
            name: "mutable-content as a string", payload: #"{"aps":{"mutable-content":"1","alert":"x"}}"#,
            expected: ["mutable-content-not-1"]),
        LintCase(
            name: "content-available true", payload: #"{"aps":{"content-available":true}}"#, pushType: "background",
            priority: "5", expected: ["content-available-not-1"]),
        LintCase(
            name: "image URL inside aps", payload: #"{"aps":{"alert":"x","image":"https://example.com/a.jpg"}}"#,
            expected: ["custom-key-in-aps"]),
        LintCase(
            name: "background push at default priority 10", payload: #"{"aps":{"content-available":1}}"#,
            expected: ["background-priority-10"]),
        LintCase(
            name: "background push at priority 10", payload: #"{"aps":{"content-available":1}}"#,
            pushType: "background", priority: "10", expected: ["background-priority-10"]),
        LintCase(
            name: "background payload sent as alert", payload: #"{"aps":{"content-available":1}}"#, pushType: "alert",
            priority: "5", expected: ["alert-push-type-for-background"]),
        LintCase(
            name: "background push with an alert", payload: #"{"aps":{"content-available":1,"alert":"x"}}"#,
            pushType: "background", priority: "5", expected: ["background-with-alert"]),
        LintCase(
            name: "background push without content-available", payload: #"{"aps":{},"k":1}"#, pushType: "background",
            priority: "5", expected: ["background-without-content-available"]),
        LintCase(
            name: "alert push that shows nothing", payload: #"{"aps":{"category":"x"}}"#, pushType: "alert",
            expected: ["alert-without-content"]),
        LintCase(name: "no aps at all", payload: #"{"alert":"x"}"#, expected: ["missing-aps", "aps-key-outside-aps"]),
        LintCase(name: "aps is a string", payload: #"{"aps":"hello"}"#, expected: ["aps-not-an-object"]),
        LintCase(name: "alert is a number", payload: #"{"aps":{"alert":5}}"#, expected: ["wrong-type"]),
        LintCase(name: "alert is empty", payload: #"{"aps":{"alert":""}}"#, expected: ["alert-empty"]),
        LintCase(
            name: "unknown alert key", payload: #"{"aps":{"alert":{"body":"x","colour":"red"}}}"#,
            expected: ["unknown-alert-key"]),
        LintCase(
            name: "loc-args without loc-key", payload: #"{"aps":{"alert":{"body":"x","loc-args":["a"]}}}"#,
            expected: ["loc-args-without-loc-key"]),
        LintCase(
            name: "loc-args with a number", payload: #"{"aps":{"alert":{"loc-key":"K","loc-args":["a",2]}}}"#,
            expected: ["array-element-not-string"]),
        LintCase(
            name: "title is a number", payload: #"{"aps":{"alert":{"title":1,"body":"x"}}}"#, expected: ["wrong-type"]),
        LintCase(name: "empty sound", payload: #"{"aps":{"alert":"x","sound":""}}"#, expected: ["sound-empty"]),
        LintCase(
            name: "sound dictionary without name", payload: #"{"aps":{"alert":"x","sound":{"critical":1}}}"#,
            expected: ["critical-sound-without-name"]),
        LintCase(
            name: "sound volume out of range", payload: #"{"aps":{"alert":"x","sound":{"name":"a","volume":2}}}"#,
            expected: ["volume-out-of-range"]),
        LintCase(
            name: "unknown sound key", payload: #"{"aps":{"alert":"x","sound":{"name":"a","loud":1}}}"#,
            expected: ["unknown-sound-key"]),
        LintCase(name: "sound is a number", payload: #"{"aps":{"alert":"x","sound":1}}"#, expected: ["wrong-type"]),
        LintCase(
            name: "category is a number", payload: #"{"aps":{"alert":"x","category":3}}"#, expected: ["wrong-type"]),
        LintCase(
            name: "thread-id is a number", payload: #"{"aps":{"alert":"x","thread-id":3}}"#, expected: ["wrong-type"]),
        LintCase(
            name: "unknown interruption level", payload: #"{"aps":{"alert":"x","interruption-level":"urgent"}}"#,
            expected: ["value-not-allowed"]),
        LintCase(
            name: "relevance score above 1", payload: #"{"aps":{"alert":"x","relevance-score":5}}"#,
            expected: ["relevance-score-out-of-range"]),
        LintCase(
            name: "live activity key in an alert push", payload: #"{"aps":{"alert":"x","event":"update"}}"#,
            expected: ["liveactivity-key-outside-liveactivity"]),
        LintCase(
            name: "live activity without event and timestamp", payload: #"{"aps":{"content-state":{}}}"#,
            pushType: "liveactivity", expected: ["liveactivity-without-event", "liveactivity-without-timestamp"]),
        LintCase(
            name: "live activity timestamp in milliseconds",
            payload: #"{"aps":{"event":"end","timestamp":1685952000000,"content-state":{}}}"#, pushType: "liveactivity",
            expected: ["time-in-milliseconds"]),
        LintCase(
            name: "live activity start missing attributes",
            payload: #"{"aps":{"event":"start","timestamp":1,"content-state":{},"alert":"x"}}"#,
            pushType: "liveactivity", expected: ["liveactivity-start-missing-key", "liveactivity-start-missing-key"]),
        LintCase(
            name: "live activity with an unknown event", payload: #"{"aps":{"event":"pause","timestamp":1}}"#,
            pushType: "liveactivity", expected: ["value-not-allowed"]),
        LintCase(
            name: "live activity at priority 1", payload: #"{"aps":{"event":"end","timestamp":1,"content-state":{}}}"#,
            pushType: "liveactivity", priority: "1", expected: ["liveactivity-priority-1"]),
        LintCase(
            name: "duplicate key", payload: #"{"aps":{"alert":"x","badge":1,"badge":2}}"#, expected: ["duplicate-key"]),
        LintCase(
            name: "expiration written as a duration", payload: #"{"aps":{"alert":"x"}}"#, expiration: "300",
            expected: ["expiration-looks-like-duration"]),
        LintCase(
            name: "expiration in the past", payload: #"{"aps":{"alert":"x"}}"#, expiration: "1700000000",
            expected: ["expiration-in-past"]),
        LintCase(
            name: "alert topic with a voip suffix", payload: #"{"aps":{"alert":"x"}}"#, pushType: "alert",
            topic: "com.example.app.voip", expected: ["topic-has-other-push-type-suffix"]),
        LintCase(
            name: "widgets push as Apple writes it", payload: #"{"aps":{"content-changed":true}}"#, pushType: "widgets",
            topic: "com.example.app.push-type.widgets", expected: []),
        LintCase(
            name: "widgets push without content-changed, with an alert", payload: #"{"aps":{"alert":"x"}}"#,
            pushType: "widgets", topic: "com.example.app.push-type.widgets",
            expected: ["widgets-without-content-changed", "widgets-push-shows-nothing"]),
        LintCase(
            name: "controls push with content-changed 1", payload: #"{"aps":{"content-changed":1}}"#,
            pushType: "controls", topic: "com.example.app.push-type.controls", expected: ["content-changed-not-true"]),
        LintCase(
            name: "content-changed in an alert push", payload: #"{"aps":{"alert":"x","content-changed":true}}"#,
            pushType: "alert", expected: ["content-changed-outside-widgets"]),
        LintCase(
            name: "url-args for Safari", payload: #"{"aps":{"alert":"x","url-args":["a",1]}}"#,
            expected: ["array-element-not-string"]),
    ]

    @Test("each rule fires exactly where it should", arguments: cases)
    func rule(_ lintCase: LintCase) {
        let report = APNSLinter.lint(
            APNSLinter.Request(
                body: Data(lintCase.payload.utf8),
                pushType: lintCase.pushType,
                priority: lintCase.priority,
                topic: lintCase.topic,
                expiration: lintCase.expiration,
                now: Self.now
            )
        )
        #expect(report.diagnostics.map(\.rule).sorted() == lintCase.expected.sorted(), "\(report.diagnostics)")
        #expect(report.isAccepted)
    }

    @Test(
        "errors carry the reason and status APNs answers with",
        arguments: [
            ("", nil, nil, nil, "PayloadEmpty", 400),
            ("[1]", nil, nil, nil, "PayloadEmpty", 400),
            ("{\"aps\":", nil, nil, nil, "PayloadEmpty", 400),
            ("{\"aps\":{\"alert\":\"x\"}}", "banner", nil, nil, "InvalidPushType", 400),
            ("{\"aps\":{\"alert\":\"x\"}}", nil, "3", nil, "BadPriority", 400),
            ("{\"aps\":{\"alert\":\"x\"}}", nil, nil, "com example", "BadTopic", 400),
            ("{\"aps\":{\"alert\":\"x\"}}", "voip", nil, "com.example.app", "DeviceTokenNotForTopic", 400),
        ] as [(String, String?, String?, String?, String, Int)]
    )
    func errors(payload: String, pushType: String?, priority: String?, topic: String?, reason: String, status: Int) {
        let report = APNSLinter.lint(
            APNSLinter.Request(
                body: Data(payload.utf8), pushType: pushType, priority: priority, topic: topic, now: Self.now)
        )
        #expect(!report.isAccepted)
        #expect(report.errors.first?.reason?.rawValue == reason)
        #expect(report.errors.first?.status == status)
    }

    @Test("the size limit is 4096 bytes, 5120 for voip, counted on the exact bytes")
    func sizeLimits() {
        func payload(size: Int) -> Data {
            let prefix = #"{"aps":{"alert":""#
            let suffix = #""}}"#
            return Data(
                (prefix + String(repeating: "a", count: size - prefix.utf8.count - suffix.utf8.count) + suffix).utf8)
        }
        #expect(APNSLinter.lint(.init(body: payload(size: 4096))).isAccepted)
        let over = APNSLinter.lint(.init(body: payload(size: 4097)))
        #expect(over.errors.map(\.reason) == [.payloadTooLarge])
        #expect(over.errors.first?.status == 413)
        #expect(
            over.errors.first?.message == "the payload is 4097 bytes; APNs accepts at most 4096 for push type alert")
        #expect(APNSLinter.lint(.init(body: payload(size: 5120), pushType: "voip")).isAccepted)
        #expect(!APNSLinter.lint(.init(body: payload(size: 5121), pushType: "voip")).isAccepted)
        let multiByte = Data((#"{"aps":{"alert":""# + String(repeating: "你", count: 1359) + #""}}"#).utf8)
        #expect(multiByte.count == 4097)
        #expect(!APNSLinter.lint(.init(body: multiByte)).isAccepted)
    }

    @Test("several header errors are all reported, errors before warnings")
    func ordering() {
        let report = APNSLinter.lint(
            .init(
                body: Data(#"{"aps":{"badge":"1"}}"#.utf8), priority: "7",
                collapseID: String(repeating: "c", count: 65), apnsID: "nope")
        )
        #expect(report.diagnostics.map(\.severity) == [.error, .error, .error, .warning])
        #expect(Set(report.errors.compactMap(\.reason)) == [.badPriority, .badCollapseID, .badMessageID])
    }

    @Test("the push type is inferred as iOS infers it")
    func inference() {
        #expect(
            APNSLinter.lint(.init(body: Data(#"{"aps":{"content-available":1}}"#.utf8), priority: "5")).pushType
                == .background)
        let alert = APNSLinter.lint(.init(body: Data(#"{"aps":{"content-available":1,"badge":1}}"#.utf8)))
        #expect(alert.pushType == .alert)
        #expect(alert.pushTypeInferred)
    }
}
