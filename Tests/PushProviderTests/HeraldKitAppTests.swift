import APNSCore
import Crypto
import DeviceSimulator
import Foundation
import HeraldKit
import HeraldTesting
import Synchronization
import TestPacing
import Testing
import UserNotifications

@testable import PushProvider

/// HeraldKit's registration, sign-out, end-to-end fields, categories and tokens against a real provider.
@Suite("HeraldKit: what an app registers, decrypts and fetches", .startsServers)
struct HeraldKitAppTests {
    typealias Kit = HeraldKitReceiptTests

    static func token(_ byte: UInt8, count: Int = 32) -> Data { Data(repeating: byte, count: count) }

    @Test("a token of 0 or 101 bytes is refused before anything is sent; 100 bytes is a token", arguments: [0, 101])
    func badTokens(count: Int) async throws {
        try await ProviderHarness.with { harness in
            let herald = try Kit.herald(harness)
            await #expect(throws: HeraldError.self) {
                try await herald.register(deviceToken: Self.token(1, count: count))
            }
            #expect(herald.registeredToken == nil)
            #expect(try await harness.call("GET", "/v1/devices").1.array.isEmpty)
            try await herald.register(deviceToken: Self.token(2, count: 100))
            #expect(try await harness.call("GET", "/v1/devices").1.array.count == 1)
        }
    }

    @Test("a new token from APNs names the old one: the provider retires it as replaced")
    func newTokenReplacesOld() async throws {
        try await ProviderHarness.with { harness in
            let herald = try Kit.herald(harness)
            try await herald.register(deviceToken: Self.token(0xA1))
            try await herald.register(deviceToken: Self.token(0xB2))
            let old = try await harness.call("GET", "/v1/devices/\(String(repeating: "a1", count: 32))").1
            #expect(old["active"].bool == false)
            #expect(old["deactivationReason"].string == "replaced")
            #expect(herald.registeredToken == String(repeating: "b2", count: 32))
        }
    }

    @Test("data restored from another user's phone: the old token is not retired without its owner, the new one works")
    func restoredDataRegistersAlone() async throws {
        try await ProviderHarness.with { harness in
            let old = try Kit.herald(harness)
            try await old.register(
                deviceToken: Self.token(0xC3),
                DeviceRegistration(userID: "victim", userToken: try await harness.userToken("victim")))
            let restored = old.configuration.folder.deletingLastPathComponent()
                .appendingPathComponent("restored-\(UUID())")
            try FileManager.default.copyItem(at: old.configuration.folder, to: restored)
            let problems = ProblemsSeen()
            let herald = try Kit.herald(harness, folder: restored, onProblem: problems.add)
            try await herald.register(
                deviceToken: Self.token(0xD4),
                DeviceRegistration(userID: "mallory", userToken: try await harness.userToken("mallory")))
            let kept = try await harness.call("GET", "/v1/devices/\(String(repeating: "c3", count: 32))").1
            #expect(kept["active"].bool == true && kept["userID"].string == "victim")
            let new = try await harness.call("GET", "/v1/devices/\(String(repeating: "d4", count: 32))").1
            #expect(new["userID"].string == "mallory")
            #expect(problems.all.contains { $0.description.contains("the old token was not retired") })
        }
    }

    @Test("sign in registers the key with the user; sign out unbinds the device; the next user signs in")
    func signInOutIn() async throws {
        try await ProviderHarness.with { harness in
            let herald = try Kit.herald(harness)
            let hex = String(repeating: "e5", count: 32)
            try await herald.register(deviceToken: Self.token(0xE5))
            try await herald.register(
                deviceToken: Self.token(0xE5),
                DeviceRegistration(userID: "alice", userToken: try await harness.userToken("alice")))
            var device = try await harness.call("GET", "/v1/devices/\(hex)").1
            #expect(device["userID"].string == "alice")
            let key = try herald.endToEndKey().publicKey.rawRepresentation.base64EncodedString()
            #expect(device["publicKey"].string == key)
            try await herald.signOut()
            device = try await harness.call("GET", "/v1/devices/\(hex)").1
            #expect(device["userID"].string == nil)
            #expect(device["active"].bool == true)
            try await herald.register(
                deviceToken: Self.token(0xE5),
                DeviceRegistration(userID: "bob", userToken: try await harness.userToken("bob")))
            device = try await harness.call("GET", "/v1/devices/\(hex)").1
            #expect(device["userID"].string == "bob")
        }
    }

    @Test(
        "end-to-end: an envelope to the app's key opens into the content; another key's shows the original and says why"
    )
    func endToEndFields() async throws {
        try await ProviderHarness.with { harness in
            let herald = try Kit.herald(harness)
            try await herald.register(deviceToken: Self.token(0xF6), DeviceRegistration(registersEndToEndKey: true))
            let keyFile = herald.configuration.folder.appendingPathComponent("end-to-end.key")
            let mode = try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let secret = Data(#"{"title": "Alice", "body": "the meeting moved to 3 pm", "room": 4}"#.utf8)
            let good = try EndToEndEnvelope.seal(secret, to: try herald.endToEndKey().publicKey)
            let content = Self.content(["e2e": Self.fields(good)])
            #expect(herald.openEncryptedFields(in: content).isEmpty)
            #expect(content.title == "Alice" && content.body == "the meeting moved to 3 pm")
            #expect((content.userInfo["e2e"] as? [String: Any])?["room"] as? Int == 4)

            let other = try EndToEndEnvelope.seal(secret, to: Curve25519.KeyAgreement.PrivateKey().publicKey)
            let rotated = Self.content(["e2e": Self.fields(other)])
            let problems = herald.openEncryptedFields(in: rotated)
            #expect(problems.count == 1 && problems.first?.description.contains("does not open") == true)
            #expect(rotated.title == "New message" && rotated.userInfo["e2e"] == nil)

            var version2 = Self.fields(good)
            version2["v"] = 2
            var tampered = Self.fields(good)
            let ct = Data(base64Encoded: try #require(tampered["ct"] as? String))!
            tampered["ct"] = Data(ct.dropLast() + [ct.last! ^ 1]).base64EncodedString()
            for (fields, words) in [(version2, "only 1 is known"), (tampered, "does not open")] {
                let shown = Self.content(["e2e": fields])
                let problems = herald.openEncryptedFields(in: shown)
                #expect(problems.first?.description.contains(words) == true, "\(problems)")
                #expect(shown.title == "New message")
            }
        }
    }

    static func fields(_ envelope: EndToEndEnvelope) -> [String: Any] {
        [
            "v": 1, "enc": envelope.encapsulatedKey.base64EncodedString(),
            "ct": envelope.ciphertext.base64EncodedString(),
        ]
    }

    static func content(_ userInfo: [String: Any]) -> UNMutableNotificationContent {
        let content = UNMutableNotificationContent()
        content.title = "New message"
        content.userInfo = userInfo
        return content
    }

    @Test("categories: fetched with the app's own, kept when the provider cannot be reached, 304 when unchanged")
    func categories() async throws {
        try await ProviderHarness.with { harness in
            let config = """
                {"NotificationConfig": {
                  "UNNotificationCategory": {"see": {"identifier": "see", "actions": ["love"], "options": 0}},
                  "UNNotificationAction": {"love": {"identifier": "love", "title": "I love it~", "options": 4}}}}
                """
            #expect(
                try await harness.call("PUT", "/v1/apps/\(harness.appID)/categories", body: Data(config.utf8)).0 == 200)
            let herald = try Kit.herald(harness)
            let own = UNNotificationCategory(identifier: "own", actions: [], intentIdentifiers: [])
            let center = UNUserNotificationCenter(configuration: .init())
            let set = try await herald.syncCategories(keeping: [own], center: center)
            #expect(Set(set.map(\.identifier)) == ["see", "own"])
            #expect(center.category(withIdentifier: "see")?.actions.first?.title == "I love it~")
            // Unchanged: the provider answers 304 and the kept document is applied again.
            let again = UNUserNotificationCenter(configuration: .init())
            #expect(
                Set(try await herald.syncCategories(keeping: [own], center: again).map(\.identifier)) == ["see", "own"])
            // Offline: the last set stays, and the error says why.
            var offline = herald.configuration
            offline.providerURL = URL(string: "http://127.0.0.1:9")!
            let relaunched = try Herald(configuration: offline)
            let third = UNUserNotificationCenter(configuration: .init())
            await #expect(throws: HeraldError.self) {
                try await relaunched.syncCategories(keeping: [own], center: third)
            }
            #expect(third.category(withIdentifier: "see") != nil)
        }
    }

    @Test("activity and widget tokens are registered with the signed-in user and the device's token")
    func tokens() async throws {
        try await ProviderHarness.with { harness in
            let herald = try Kit.herald(harness)
            try await herald.register(
                deviceToken: Self.token(0x17),
                DeviceRegistration(userID: "alice", userToken: try await harness.userToken("alice")))
            try await herald.registerActivityToken(
                Self.token(0x18), kind: .pushToStart, attributesType: "ScoreAttributes")
            try await herald.registerWidgetToken(Self.token(0x19), kind: .control("Mute"))
            let activities = try await harness.call("GET", "/v1/activities/tokens?type=ScoreAttributes").1.array
            #expect(activities.first?["userID"].string == "alice")
            #expect(activities.first?["deviceToken"].string == String(repeating: "17", count: 32))
            let widgets = try await harness.call("GET", "/v1/widgets/tokens?control=Mute").1.array
            #expect(widgets.first?["token"].string == String(repeating: "19", count: 32))
            await #expect(throws: HeraldError.self) {
                try await herald.registerActivityToken(Data(), kind: .update, attributesType: "ScoreAttributes")
            }
        }
    }
}

extension HeraldKitAppTests {
    @Test("a simulated phone fetches the provider's categories at start and again when a push says they changed")
    func simulatedDeviceCategories() async throws {
        try await ProviderHarness.with { harness in
            let device = try await FeedbackLoopTests.device(registeredWith: harness)
            defer { Task { await device.stop() } }
            let log = DeviceEventLog(device)
            // The phone registers as it starts: a push to everyone before its registration is recorded reaches no one.
            let token = try #require(device.installedApps.first?.token)
            try await harness.until("the device's registration") {
                try await harness.call("GET", "/v1/devices/\(token)").0 == 200
            }
            // And fetches the categories as it starts: that fetch is over before they change (a loaded machine ran it
            // after the change, and it found the new category before any push said so).
            try await harness.until("the device's first fetch of the categories") {
                try await harness.metrics().contains(
                    #"http_requests_total{route="/v1/categories",method="GET",status="200"}"#)
            }
            let center = try #require(device.notificationCenter(of: ProviderHarness.bundleID))
            #expect(center.category(withIdentifier: "chat") != nil)
            let config = """
                {"NotificationConfig": {
                  "UNNotificationCategory": {"vote": {"identifier": "vote", "actions": ["yes"], "options": 0}},
                  "UNNotificationAction": {"yes": {"identifier": "yes", "title": "Yes", "options": 0}}}}
                """
            #expect(
                try await harness.call("PUT", "/v1/apps/\(harness.appID)/categories", body: Data(config.utf8)).0 == 200)
            #expect(center.category(withIdentifier: "vote") == nil)
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["all": true], "pushType": "background",
                    "payload": ["aps": ["content-available": 1], Herald.categoriesChangedKey: "changed"],
                ])
            #expect(status == 202, "\(created)")
            _ = try await log.next(.delivered)
            #expect(center.category(withIdentifier: "vote")?.actions.first?.title == "Yes")
            #expect(center.category(withIdentifier: "chat") != nil)
        }
    }
}

/// Problems HeraldKit reported, collected from its handler.
final class ProblemsSeen: Sendable {
    private let seen = Mutex<[HeraldError]>([])
    func add(_ problem: HeraldError) { seen.withLock { $0.append(problem) } }
    var all: [HeraldError] { seen.withLock { $0 } }
}
