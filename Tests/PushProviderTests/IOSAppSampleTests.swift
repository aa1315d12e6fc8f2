import APNSCore
import APNSGateway
import DeviceSimulator
import Foundation
import GatewayTestSupport
import HeraldKit
import HeraldTesting
import Synchronization
import TestPacing
import Testing
import UserNotifications

@testable import PushProvider

/// docs/ios-app.md's code, compiled here (`IOSAppSample/`) and run as an app on a simulated phone against a local
/// APNs and a provider: registration, categories, the service extension, the delegate, and what the provider learns.
@Suite("docs/ios-app.md: the integration an iOS developer pastes", .startsServers)
struct IOSAppSampleTests {
    static let sampleFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("IOSAppSample")

    @Test("every Swift block of the document is in the compiled sample, except the UIKit ones it marks")
    func documentIsTheSample() throws {
        let document = try String(
            contentsOf: Self.sampleFolder.deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent("docs/ios-app.md"), encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.sampleFolder.path)
        let sample = try files.map {
            try String(contentsOf: Self.sampleFolder.appendingPathComponent($0), encoding: .utf8)
        }
        .joined(separator: "\n")
        let blocks = document.matches(of: /(<!-- not compiled here[^>]*-->\n)?```swift\n((?:.|\n)*?)```/)
        #expect(blocks.count >= 4)
        var compiled = 0
        for block in blocks where block.1 == nil {
            compiled += 1
            #expect(sample.contains(String(block.2)), "docs/ios-app.md's block is not in the sample:\n\(block.2)")
        }
        #expect(compiled >= 3)
    }

    @Test("the sample app on a simulated phone: an encrypted push opened in its extension, a reply reported")
    func sampleRuns() async throws {
        try await ProviderHarness.with { harness in
            SampleEnvironment.configuration.withLock {
                var configuration = HeraldConfiguration(
                    providerURL: URL(string: harness.baseURL)!, publishableKey: harness.publishableKey,
                    folder: FileManager.default.temporaryDirectory.appendingPathComponent("sample-app-\(UUID())"))
                configuration.bundleID = ProviderHarness.bundleID
                $0 = configuration
            }
            let manifest = try AppManifest(
                data: Data(
                    #"{"bundleID": "com.example.app", "authorization": {"granted": true, "options": ["alert"]}}"#.utf8))
            var configuration = SimulatedDevice.Configuration(
                gatewayHost: "127.0.0.1", gatewayPort: harness.gateway.port,
                caPEM: harness.gateway.server.certificateAuthority.caCertificatePEM, apps: [manifest],
                dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("phone-\(UUID())"))
            configuration.serviceExtensions[manifest.bundleID] = { NotificationService() }
            let device = try await SimulatedDevice.start(configuration)
            defer { Task { await device.stop() } }
            let log = DeviceEventLog(device)
            let center = try #require(device.notificationCenter(of: manifest.bundleID))

            let app = AppPush()
            await app.launched(center: center)
            #expect(center.category(withIdentifier: "chat") != nil)
            let token = try #require(device.installedApps.first?.token)
            await app.registered(
                deviceToken: try HeraldKitReceiptTests.bytes(token), userID: "alice",
                userToken: try await harness.userToken("alice"))

            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: [
                    "target": ["user": "alice"], "content": ["title": "New message", "category": "chat"],
                    "encrypted": ["title": "Bob", "body": "lunch at noon?"],
                ])
            #expect(status == 202, "\(created)")
            let id = try #require(created["id"].string)
            let shown = try await log.next(.displayed)
            let notification = try #require(await device.notifications().first { $0.apnsID == shown.apnsID })
            #expect(notification.title == "Bob" && notification.body == "lunch at noon?")
            try await device.respond(to: notification.id, action: "reply", text: "on my way")
            try await harness.until("the reply, reported by the sample's delegate") {
                let stats = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
                return stats["replies"].int == 1 && stats["delivered"].int == 1 && stats["displayed"].int == 1
            }
            let breakdown = try await harness.call("GET", "/v1/notifications/\(id)/breakdown").1
            #expect(breakdown["verdicts"][0]["verdict"].string == "replied")
            #expect(breakdown["note"].string == nil)
            let responses = try await harness.call("GET", "/v1/notifications/\(id)/responses").1
            #expect(responses[0]["text"].string == "on my way")
        }
    }
}
