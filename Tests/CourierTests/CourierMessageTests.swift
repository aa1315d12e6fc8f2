import APNSCore
import Courier
import Foundation
import Testing

@Suite("The courier's messages: what a device may send, and what it is sent")
struct CourierMessageTests {
    static let token = String(repeating: "ab", count: 32)

    func parse(_ json: String) throws(GatewayDataError) -> CourierMessage {
        try CourierMessage(Array(json.utf8))
    }

    @Test("each op is read with its fields; register's environment defaults to development")
    func eachOp() throws {
        let token = try APNSDeviceToken(hex: Self.token)
        guard
            case .register("com.example.app", .development, nil, nil) = try parse(
                #"{"op":"register","bundle-id":"com.example.app"}"#)
        else {
            Issue.record("register")
            return
        }
        let id = UUID()
        guard case .acknowledge(token, id) = try parse(#"{"op":"ack","token":"\#(Self.token)","apns-id":"\#(id)"}"#)
        else {
            Issue.record("ack")
            return
        }
        guard case .unregister(token) = try parse(#"{"op":"unregister","token":"\#(Self.token)"}"#) else {
            Issue.record("unregister")
            return
        }
        guard
            case .acknowledgeBroadcast(token, id) = try parse(
                #"{"op":"broadcast-ack","token":"\#(Self.token)","apns-unique-id":"\#(id)"}"#)
        else {
            Issue.record("broadcast-ack")
            return
        }
    }

    @Test(
        "a message that breaks a rule is refused with words that name the rule",
        arguments: [
            ("[1,2]", "a JSON object with \"op\""), ("{\"op\":\"jump\"}", "unknown op 'jump'"),
            ("{\"op\":\"register\"}", "\"bundle-id\" is missing"),
            ("{\"op\":\"register\",\"bundle-id\":\"a b\"}", "register: "),
            ("{\"op\":\"register\",\"bundle-id\":\"a.b\",\"environment\":\"staging\"}", "environment 'staging'"),
            (
                "{\"op\":\"register\",\"bundle-id\":\"a.b\",\"secret\":\"\(String(repeating: "s", count: 257))\"}",
                "\"secret\""
            ),
            ("{\"op\":\"ack\",\"token\":\"\(token)\"}", "\"apns-id\" is missing or not a UUID"),
            ("{\"op\":\"unregister\"}", "\"token\" is missing"),
            ("{\"op\":\"unregister\",\"token\":\"xyz\"}", "\"token\" is not a device token"),
            ("{\"op\":\"subscribe\",\"token\":\"\(token)\"}", "\"channel-id\" is missing"),
            ("{\"op\":\"subscribe\",\"token\":\"\(token)\",\"channel-id\":\"!\"}", "subscribe: "),
        ])
    func refusals(json: String, says: String) {
        #expect {
            _ = try parse(json)
        } throws: { error in
            (error as? GatewayDataError)?.message.contains(says) == true
        }
    }

    @Test("an accepted notification survives its courier JSON: every field read back as written")
    func acceptedRoundTrip() throws {
        let notification = AcceptedNotification(
            apnsID: UUID(), uniqueID: UUID(), token: try APNSDeviceToken(hex: Self.token), topic: "com.example.app",
            pushType: .alert, priority: .immediate, expiration: .storagePolicy,
            collapseID: APNSCollapseID(rawValue: "score"), payload: Array(#"{"aps":{"alert":"Hi \"you\""}}"#.utf8),
            receivedAt: Date(millisecondsSince1970: 1_790_000_000_123))
        let object = try #require(try JSONValue(parsing: Data(notification.json())).object)
        #expect(try AcceptedNotification(json: object) == notification)
        // With the gateway's trace context, handed on to the device; one past any traceparent's size is dropped.
        var traced = notification
        traced.traceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let read = try AcceptedNotification(json: try #require(try JSONValue(parsing: Data(traced.json())).object))
        #expect(read == traced && read.traceParent == traced.traceParent)
        traced.traceParent = String(repeating: "0", count: 129)
        let long = try AcceptedNotification(json: try #require(try JSONValue(parsing: Data(traced.json())).object))
        #expect(long.traceParent == nil)
    }

    @Test(
        "the JSON is written field by field exactly as a JSON value of the same fields is: escapes, absent fields as null",
        arguments: [
            (#"com.example.app"#, "score", 1_790_000_000, true),
            ("com.ex\"am\\ple\n\u{01}.app", "a\"b\\c\td", 0, false),
            ("com.example.app.voip", nil, nil, true),
        ] as [(String, String?, Int?, Bool)])
    func writtenAsAValue(topic: String, collapseID: String?, expiration: Int?, unique: Bool) throws {
        let notification = AcceptedNotification(
            apnsID: UUID(), uniqueID: unique ? UUID() : nil, token: try APNSDeviceToken(hex: Self.token), topic: topic,
            pushType: .voip, priority: .conservePower,
            expiration: expiration.flatMap { APNSExpiration(headerValue: String($0)) } ?? .storagePolicy,
            collapseID: collapseID.flatMap(APNSCollapseID.init(rawValue:)), payload: Array(#"{"aps":{}}"#.utf8),
            receivedAt: Date(millisecondsSince1970: 1_790_000_000_123))
        let fields: [(key: String, value: JSONValue)] = [
            ("apns-id", .string(notification.apnsID.uuidString.lowercased())),
            ("apns-unique-id", notification.uniqueID.map { .string($0.uuidString.lowercased()) } ?? .null),
            ("token", .string(Self.token)), ("topic", .string(topic)), ("push-type", "voip"), ("priority", 5),
            ("expiration", expiration.map { .number(JSONNumber($0)) } ?? .null),
            ("collapse-id", collapseID.map { .string($0) } ?? .null), ("received", 1_790_000_000_123),
            ("op", "notification"), ("payload", ["aps": [:]]),
        ]
        let expected = String(decoding: JSONValue.object(JSONObject(fields)).encoded(), as: UTF8.self)
        let written = String(decoding: notification.json(extra: [("op", "notification")]), as: UTF8.self)
        #expect(written == expected)
        let object = try #require(try JSONValue(parsing: Data(written.utf8)).object)
        #expect(try AcceptedNotification(json: object) == notification)
    }
}
