import Foundation
import Testing

@testable import APNSCore

@Suite("Request headers")
struct APNSRequestHeadersTests {
    @Test("valid headers parse, and write back the same fields")
    func validHeaders() throws {
        let fields: [(name: String, value: String)] = [
            ("apns-push-type", "alert"), ("apns-id", "eabeae54-14a8-11e5-b60b-1697f925ec7b"),
            ("apns-expiration", "0"), ("apns-priority", "10"), ("apns-topic", "com.example.MyApp"),
            ("apns-collapse-id", "score"), ("user-agent", "ignored"), (":path", "/3/device/00"),
        ]
        let headers = try APNSRequestHeaders(validating: fields)
        #expect(headers.pushType == .alert)
        #expect(headers.expiration == .immediately)
        #expect(headers.priority == .immediate)
        #expect(headers.apnsID?.rawValue == "eabeae54-14a8-11e5-b60b-1697f925ec7b")
        #expect(headers.topic == "com.example.MyApp")
        #expect(headers.collapseID?.rawValue == "score")
        #expect(headers.headerFields.map(\.name) == Array(fields.prefix(6).map(\.name)))
        #expect(headers.headerFields.map(\.value) == Array(fields.prefix(6).map(\.value)))
    }

    @Test("omitted headers take APNs' defaults")
    func defaults() throws {
        let headers = try APNSRequestHeaders(validating: [])
        #expect(headers.pushType == nil)
        #expect(headers.effectivePriority == .immediate)
        #expect(headers.expiration == .storagePolicy)
        #expect(headers.headerFields.isEmpty)
    }

    @Test(
        "each broken header rule gets APNs' reason",
        arguments: [
            ("apns-push-type", "banner", "InvalidPushType"),
            ("apns-push-type", "Alert", "InvalidPushType"),
            ("apns-priority", "7", "BadPriority"),
            ("apns-priority", "high", "BadPriority"),
            ("apns-priority", "010", "BadPriority"),
            ("apns-priority", "", "BadPriority"),
            ("apns-expiration", "-1", "BadExpirationDate"),
            ("apns-expiration", "tomorrow", "BadExpirationDate"),
            ("apns-expiration", "1.5", "BadExpirationDate"),
            ("apns-id", "not-a-uuid", "BadMessageId"),
            ("apns-id", "eabeae5414a811e5b60b1697f925ec7b", "BadMessageId"),
            ("apns-topic", "", "BadTopic"),
            ("apns-topic", "com.example app", "BadTopic"),
            ("apns-topic", "com..example", "BadTopic"),
            ("apns-collapse-id", String(repeating: "x", count: 65), "BadCollapseId"),
            ("apns-collapse-id", String(repeating: "é", count: 33), "BadCollapseId"),
        ]
    )
    func brokenRule(header: String, value: String, reason: String) {
        #expect {
            try APNSRequestHeaders(validating: [(header, value)])
        } throws: { ($0 as? APNSRequestRejection)?.reason.rawValue == reason }
    }

    @Test("a collapse ID of exactly 64 bytes is accepted; uppercase apns-id too")
    func limits() throws {
        let headers = try APNSRequestHeaders(validating: [
            ("apns-collapse-id", String(repeating: "x", count: 64)),
            ("apns-id", "EABEAE54-14A8-11E5-B60B-1697F925EC7B"),
        ])
        #expect(headers.collapseID?.rawValue.count == 64)
        #expect(headers.apnsID?.rawValue == "EABEAE54-14A8-11E5-B60B-1697F925EC7B")
    }

    @Test("a repeated header is DuplicateHeaders, whatever its case")
    func duplicates() {
        #expect {
            try APNSRequestHeaders(validating: [(name: "apns-topic", value: "a.b"), (name: "APNS-TOPIC", value: "a.b")])
        } throws: { ($0 as? APNSRequestRejection)?.reason == .duplicateHeaders }
        #expect {
            try APNSRequestHeaders(validating: [
                (name: "authorization", value: "bearer a"), (name: "authorization", value: "bearer b"),
            ])
        } throws: { ($0 as? APNSRequestRejection)?.reason == .duplicateHeaders }
    }

    @Test("expiration: 0 is now or never, a date is kept, none is 30 days")
    func expiration() {
        let accepted = Date(timeIntervalSince1970: 1_000_000)
        #expect(APNSExpiration(headerValue: "0")?.deadline(acceptedAt: accepted) == accepted)
        #expect(APNSExpiration.storagePolicy.deadline(acceptedAt: accepted) == accepted.addingTimeInterval(2_592_000))
        let soon = APNSExpiration(headerValue: "1000600")
        #expect(soon?.deadline(acceptedAt: accepted) == Date(timeIntervalSince1970: 1_000_600))
        #expect(
            APNSExpiration(headerValue: "99999999999")?.deadline(acceptedAt: accepted)
                == accepted.addingTimeInterval(2_592_000))
        #expect(soon?.headerValue == "1000600")
    }

    @Test("environments follow Apple's host names, with or without a port")
    func environments() {
        #expect(APNSEnvironment(authority: "api.push.apple.com") == .production)
        #expect(APNSEnvironment(authority: "api.push.apple.com:2197") == .production)
        #expect(APNSEnvironment(authority: "api.sandbox.push.apple.com:443") == .development)
        #expect(APNSEnvironment(authority: "API.DEVELOPMENT.PUSH.APPLE.COM") == .development)
        #expect(APNSEnvironment(authority: "API-MANAGE-BROADCAST.SANDBOX.PUSH.APPLE.COM:2195") == .development)
        #expect(APNSEnvironment(authority: "127.0.0.1:2197") == nil)
        #expect(APNSEnvironment(authority: "[::1]:2197") == nil)
        #expect(APNSEnvironment(authority: "api.push.apple.com.example.org") == nil)
        #expect(APNSEnvironment(authority: "api.push.apple.co") == nil)
        #expect(APNSEnvironment(authority: "") == nil)
        #expect(APNSEnvironment(authority: ":") == nil)
        #expect(APNSEnvironment(name: "sandbox") == .development)
    }
}
