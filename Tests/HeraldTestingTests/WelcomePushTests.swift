import APNSClient
import APNSCore
import DeviceSimulator
import Foundation
import HeraldTesting
import Testing

/// The example of docs/testing.md, whole: an app's server code sends a push, and the test sees what the phone showed.
@Suite("An app's push, tested with HeraldTesting")
struct WelcomePushTests {
    /// What the app's server sends when someone signs up (in a real project, the code under test).
    static func sendWelcome(to token: String, with client: APNSPushClient) async throws -> APNSResult {
        let payload = try APNSPayload(
            data: Data(#"{"aps":{"alert":{"title":"Welcome","body":"Glad you are here"},"badge":1}}"#.utf8))
        return try await client.send(
            APNSNotification(
                deviceToken: token, headers: APNSRequestHeaders(topic: "com.example.app"), payload: payload))
    }

    @Test("the welcome push is shown with its title and badge")
    func welcomeIsShown() async throws {
        try await LocalAPNs.run { apns in
            let app = try AppManifest(data: Data(#"{"bundleID": "com.example.app"}"#.utf8))
            let device = try await apns.startDevice(apps: [app])
            let client = try apns.makeClient()

            let result = try await Self.sendWelcome(to: try device.token(for: "com.example.app"), with: client)

            #expect(result.isAccepted)
            _ = try await device.next(.displayed)
            let shown = try #require(await device.notifications().first)
            #expect(shown.title == "Welcome")
            #expect(shown.badge == 1)
            await client.shutdown()
            await device.stop()
        }
    }

    @Test("when APNs refuses, the refusal's reason reaches the caller and the phone shows nothing")
    func refusalReachesTheCaller() async throws {
        try await LocalAPNs.run { apns in
            let app = try AppManifest(data: Data(#"{"bundleID": "com.example.app"}"#.utf8))
            let device = try await apns.startDevice(apps: [app])
            let client = try apns.makeClient()
            try apns.failNext(status: 400, reason: "BadTopic")

            let result = try await Self.sendWelcome(to: try device.token(for: "com.example.app"), with: client)

            guard case .rejected(let rejection) = result else {
                Issue.record("expected a refusal, got \(result)")
                return
            }
            #expect(rejection.status == 400 && rejection.reason.rawValue == "BadTopic")
            #expect(await device.notifications().isEmpty)
            await client.shutdown()
            await device.stop()
        }
    }
}
