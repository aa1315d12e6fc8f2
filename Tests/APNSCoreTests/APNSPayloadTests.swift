import Foundation
import Testing

@testable import APNSCore

@Suite("Payloads and .apns files")
struct APNSPayloadTests {
    @Test("a payload decodes and encodes back without losing or moving a key")
    func roundTrip() throws {
        let text =
            #"{"aps":{"alert":{"title":"Game Request","subtitle":"Five Card Draw","body":"Bob wants to play poker"},"#
            + #""category":"GAME_INVITATION"},"gameID":"12345678"}"#
        let payload = try APNSPayload(data: Data(text.utf8))
        #expect(String(decoding: payload.encoded(), as: UTF8.self) == text)
        #expect(payload.customKeys == ["gameID"])
        #expect(payload.aps["category"]?.string == "GAME_INVITATION")
    }

    @Test("building a payload puts aps first and custom keys beside it")
    func building() {
        var payload = APNSPayload()
        payload["gameID"] = "1"
        payload.aps["alert"] = ["title": "Hi"]
        payload.aps["badge"] = 2
        #expect(
            String(decoding: payload.encoded(), as: UTF8.self)
                == #"{"aps":{"alert":{"title":"Hi"},"badge":2},"gameID":"1"}"#)
    }

    @Test("a payload must be a JSON object")
    func notAnObject() {
        #expect(throws: APNSPayloadError(.notAnObject, "a payload is a JSON object; this one is an array")) {
            try APNSPayload(data: Data("[1]".utf8))
        }
        #expect {
            try APNSPayload(data: Data("{".utf8))
        } throws: { ($0 as? APNSPayloadError)?.code == .invalidJSON }
    }

    @Test(
        "checking a payload without decoding it throws what decoding it throws",
        arguments: [#"{"aps":{"alert":"Hi"}}"#, "[1]", #""x""#, "1", "null", "{", "", #"{"a":"\u00"}"#, "{} {}"])
    func check(_ text: String) {
        let decoded = Result { () throws(APNSPayloadError) in _ = try APNSPayload(data: Data(text.utf8)) }
        let checked = Result { () throws(APNSPayloadError) in try APNSPayload.check(Array(text.utf8)) }
        // Errors compare by code and message.
        #expect(decoded.map { _ in true } == checked.map { _ in true })
    }

    @Test(".apns files name their app under Simulator Target Bundle, which is not sent")
    func simulatorFile() throws {
        let file = try APNSSimulatorFile(
            data: Data(#"{"Simulator Target Bundle":"com.example.app","aps":{"alert":"Hi"},"k":1}"#.utf8)
        )
        #expect(file.targetBundleID == "com.example.app")
        #expect(String(decoding: file.payload.encoded(), as: UTF8.self) == #"{"aps":{"alert":"Hi"},"k":1}"#)
        #expect(try APNSSimulatorFile(data: Data(#"{"aps":{}}"#.utf8)).targetBundleID == nil)
        #expect {
            try APNSSimulatorFile(data: Data(#"{"Simulator Target Bundle":3}"#.utf8))
        } throws: { ($0 as? APNSPayloadError)?.code == .invalidSimulatorFile }
    }

    @Test("error bodies encode reason then timestamp, and decode back")
    func errorResponse() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let body = APNSErrorResponse(reason: .unregistered, invalidSince: date)
        #expect(
            String(decoding: body.encoded(), as: UTF8.self) == #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        let decoded = try APNSErrorResponse(data: body.encoded())
        #expect(decoded == body)
        #expect(decoded.invalidSince?.timeIntervalSince1970 == 1_700_000_000.123)
        #expect(
            String(decoding: APNSErrorResponse(reason: .badTopic).encoded(), as: UTF8.self) == #"{"reason":"BadTopic"}"#
        )
        #expect(try APNSErrorResponse(data: Data(#"{"reason":"SomethingNew"}"#.utf8)).reason.rawValue == "SomethingNew")
    }
}
