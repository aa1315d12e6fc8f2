import APNSClient
import APNSCore
import DeviceSimulator
import Foundation
import HeraldTesting
import TestPacing
import Testing
import UserNotifications

/// A service extension of the test's own, as an app's would be: marks the title.
final class MarkingService: UNNotificationServiceExtension {
    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let content = request.content.mutableCopy() as? UNMutableNotificationContent
        content?.title = "[extension] " + (content?.title ?? "")
        contentHandler(content ?? request.content)
    }
}

/// What a user's test touches, and only that: the public face of HeraldTesting (docs/testing.md's table).
@Suite("HeraldTesting's device: your extension runs, the test taps, the app's center is yours", .startsServers)
struct TestDeviceTests {
    @Test("a push runs the test's service extension, is shown changed, and a tap reaches the app as a response")
    func extensionAndResponse() async throws {
        try await LocalAPNs.run { apns in
            let app = try AppManifest(
                data: Data(
                    #"{"bundleID": "com.example.app", "authorization": {"granted": true, "options": ["alert"]}}"#.utf8))
            let device = try await apns.startDevice(
                apps: [app], serviceExtensions: ["com.example.app": { MarkingService() }])
            #expect(device.notificationCenter(of: "com.example.app") != nil)
            #expect(device.notificationCenter(of: "com.example.other") == nil)
            let client = try apns.makeClient()
            let result = try await client.send(
                APNSNotification(
                    deviceToken: try device.token(for: "com.example.app"),
                    headers: APNSRequestHeaders(topic: "com.example.app"),
                    payload: try APNSPayload(
                        data: Data(#"{"aps":{"alert":{"title":"Hello"},"mutable-content":1}}"#.utf8))))
            #expect(result.isAccepted)
            _ = try await device.next(.displayed)
            let shown = try #require(await device.notifications().first)
            #expect(shown.title == "[extension] Hello")

            try await device.respond(to: shown.id, action: "default")
            let response = try await device.next(.response)
            #expect(response.action == "default" && response.bundleID == "com.example.app")
            await #expect(throws: HeraldTestingError.self) {
                try await device.respond(to: "no-such-notification", action: "default")
            }
            await client.shutdown()
            await device.stop()
        }
    }
}
