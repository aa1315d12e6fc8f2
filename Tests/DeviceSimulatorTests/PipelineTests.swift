import APNSCore
import Crypto
import DeviceSimulator
import Foundation
import GatewayTestSupport
import HeraldTesting
import TestPacing
import Testing
import UserNotifications

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The device pipeline's edges: offline storage with a restart, failing and slow extensions, oversized downloads,
/// end-to-end decryption, duplicates, silent pushes, and the local JSON API.
@Suite("Simulated device pipeline", .startsServers)
struct PipelineTests {
    static func manifest(_ json: String) throws -> AppManifest {
        try AppManifest(data: Data(json.utf8))
    }

    static let alert = Data(#"{"aps":{"alert":{"title":"Original","body":"text"},"mutable-content":1}}"#.utf8)

    @Test("a restarted device keeps its token and receives what was stored while it was offline")
    func storeAndForwardAcrossRestart() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try Self.manifest(#"{"bundleID": "com.example.offline"}"#)
            let configuration = harness.configuration([manifest])
            let first = try await SimulatedDevice.start(configuration)
            let token = try #require(first.installedApps.first?.token)
            await first.stop()
            let older = try await harness.send(Self.alert, to: manifest.bundleID, on: first)
            let newer = try await harness.send(
                Data(#"{"aps":{"alert":"the newest one"}}"#.utf8), to: manifest.bundleID, on: first)
            #expect(older != newer)

            let second = try await SimulatedDevice.install(configuration)
            let log = DeviceEventLog(second)
            try await second.connect()
            #expect(second.installedApps.first?.token == token)
            _ = try await log.next(.displayed) { $0.apnsID == newer }
            let shown = await second.notifications()
            #expect(shown.map(\.id) == [newer], "APNs keeps only the newest notification for an offline device")
            #expect(shown.first?.body == "the newest one")
            await second.stop()
        }
    }

    @Test("an extension that crashes shows the original content and logs why")
    func crashingExtension() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try Self.manifest(
                #"{"bundleID": "com.example.crash", "serviceExtension": [{"rewrite": {"title": "Changed"}}, {"fail": "boom"}]}"#
            )
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            let apnsID = try await harness.send(Self.alert, to: manifest.bundleID, on: device)
            let reason = try await log.next(.log) { $0.apnsID == apnsID }
            #expect(reason.message?.contains("boom") == true)
            _ = try await log.next(.displayed) { $0.apnsID == apnsID }
            #expect(await device.notifications().first?.title == "Original")
            await device.stop()
        }
    }

    @Test("a slow extension past its time limit shows its best attempt")
    func slowExtension() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try Self.manifest(
                #"{"bundleID": "com.example.slow", "serviceExtension": [{"rewrite": {"title": "Best attempt"}}, {"delay": 30}, {"rewrite": {"title": "Too late"}}]}"#
            )
            var configuration = harness.configuration([manifest])
            configuration.serviceExtensionTimeLimit = .milliseconds(300)
            let device = try await SimulatedDevice.start(configuration)
            let log = DeviceEventLog(device)
            let apnsID = try await harness.send(Self.alert, to: manifest.bundleID, on: device)
            let reason = try await log.next(.log) { $0.apnsID == apnsID }
            #expect(reason.message?.contains("time limit") == true)
            _ = try await log.next(.displayed) { $0.apnsID == apnsID }
            #expect(await device.notifications().first?.title == "Best attempt")
            await device.stop()
        }
    }

    @Test("a download over the image limit (10 MB) is not attached: the original is shown and the size logged")
    func tooLargeDownload() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(count: 10_000_001).write(to: folder.appendingPathComponent("huge.jpg"))
        try await MediaServer.serving(folder) { media in
            try await DeviceHarness.with { harness in
                let manifest = try Self.manifest(
                    #"{"bundleID": "com.example.big", "serviceExtension": [{"rewrite": {"title": "Changed"}}, {"attachFrom": "image"}]}"#
                )
                let device = try await SimulatedDevice.start(harness.configuration([manifest]))
                let log = DeviceEventLog(device)
                let payload = Data(
                    #"{"aps":{"alert":{"title":"Original","body":"b"},"mutable-content":1},"image":"http://127.0.0.1:\#(media.port)/huge.jpg"}"#
                        .utf8)
                let apnsID = try await harness.send(payload, to: manifest.bundleID, on: device)
                let reason = try await log.next(.log) { $0.apnsID == apnsID }
                #expect(reason.message?.contains("10000001 bytes") == true)
                _ = try await log.next(.displayed) { $0.apnsID == apnsID }
                let shown = try #require(await device.notifications().first)
                #expect(shown.title == "Original" && shown.attachments.isEmpty)
                await device.stop()
            }
        }
    }

    @Test("a payload without the attachFrom key keeps the extension's other changes, and says how it ended")
    func attachFromWithoutMedia() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try Self.manifest(
                #"{"bundleID": "com.example.optional", "serviceExtension": [{"rewrite": {"title": "Changed"}}, {"attachFrom": "image"}]}"#
            )
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            let payload = Data(#"{"aps":{"alert":{"title":"Original","body":"b"},"mutable-content":1}}"#.utf8)
            let apnsID = try await harness.send(payload, to: manifest.bundleID, on: device)
            let skipped = try await log.next(.log) { $0.apnsID == apnsID }
            #expect(skipped.message?.contains("nothing to attach") == true)
            let ended = try await log.next(.log) { $0.apnsID == apnsID }
            #expect(ended.message?.contains("the modified content is shown") == true)
            _ = try await log.next(.displayed) { $0.apnsID == apnsID }
            let shown = try #require(await device.notifications().first)
            #expect(shown.title == "Changed" && shown.attachments.isEmpty)
            await device.stop()
        }
    }

    @Test("end-to-end encryption: content sealed to the device's public key is opened by its decrypt step")
    func decryption() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try Self.manifest(
                #"{"bundleID": "com.example.secret", "serviceExtension": [{"decrypt": "secret"}]}"#)
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            let published = try #require(device.installedApps.first?.publicKey)
            let publicKey = try Curve25519.KeyAgreement.PublicKey(
                rawRepresentation: try #require(Data(base64Encoded: published)))
            let envelope = try EndToEndEnvelope.seal(
                Data(#"{"title":"Transfer received","body":"¥1,000 from Yue","orderID":"A-17"}"#.utf8), to: publicKey)
            let payload: JSONValue = [
                "aps": ["alert": ["title": "New message", "body": "(encrypted)"], "mutable-content": 1],
                "secret": envelope.json,
            ]
            let apnsID = try await harness.send(payload.encoded(), to: manifest.bundleID, on: device)
            _ = try await log.next(.displayed) { $0.apnsID == apnsID }
            let shown = try #require(await device.notifications().first)
            #expect(shown.title == "Transfer received" && shown.body == "¥1,000 from Yue")
            #expect(shown.userInfo["secret"]?["orderID"]?.string == "A-17")

            let other = try EndToEndEnvelope.seal(
                Data(#"{"body":"x"}"#.utf8), to: Curve25519.KeyAgreement.PrivateKey().publicKey)
            let wrong: JSONValue = [
                "aps": ["alert": ["title": "New message", "body": "(encrypted)"], "mutable-content": 1],
                "secret": other.json,
            ]
            let wrongID = try await harness.send(wrong.encoded(), to: manifest.bundleID, on: device)
            let reason = try await log.next(.log) { $0.apnsID == wrongID }
            #expect(reason.message?.contains("does not open with this device's key") == true)
            await device.stop()
        }
    }

    @Test("a background push wakes the app without showing anything")
    func silentPush() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try Self.manifest(#"{"bundleID": "com.example.silent"}"#)
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            let apnsID = try await harness.send(
                Data(#"{"aps":{"content-available":1},"sync":"now"}"#.utf8), to: manifest.bundleID, on: device)
            _ = try await log.next(.delivered) { $0.apnsID == apnsID }
            #expect(await device.notifications().isEmpty)
            await device.stop()
        }
    }

    @Test("the JSON API: apps, a local notification scheduled and delivered, a response, bad input answered clearly")
    func jsonAPI() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try DeviceHarness.manifest(example: "000-ritl-demo")
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            try await DeviceHarness.withAPI(of: device) { api in

                let (appsData, _) = try await HTTP.call("GET", "\(api)/apps")
                let apps = try #require(try JSONSerialization.jsonObject(with: appsData) as? [[String: Any]])
                #expect(apps.first?["bundleID"] as? String == manifest.bundleID)
                #expect(apps.first?["token"] as? String == device.installedApps.first?.token)
                let (tokenData, tokenStatus) = try await HTTP.call("GET", "\(api)/apps/\(manifest.bundleID)/token")
                #expect(tokenStatus == 200)
                #expect(String(decoding: tokenData, as: UTF8.self) == (device.installedApps.first?.token ?? "") + "\n")
                let (unknownData, unknownStatus) = try await HTTP.call("GET", "\(api)/apps/com.nope/token")
                #expect(unknownStatus == 404)
                #expect(String(decoding: unknownData, as: UTF8.self).contains("installed: \(manifest.bundleID)"))
                let (typeData, typeStatus) = try await HTTP.call(
                    "GET", "\(api)/apps/\(manifest.bundleID)/push-to-start/ScoreAttributes")
                #expect(typeStatus == 404)
                #expect(String(decoding: typeData, as: UTF8.self).contains("declares no activity type ScoreAttributes"))

                let schedule =
                    #"{"identifier": "ritl", "title": "Local", "body": "in a moment", "categoryIdentifier": "com.yue.originPush.myNotificationCategory", "trigger": {"timeInterval": 0.2}}"#
                let (_, scheduled) = try await HTTP.call(
                    "POST", "\(api)/apps/\(manifest.bundleID)/notifications", body: schedule)
                #expect(scheduled == 201)
                let delivered = try await log.next(.displayed)
                let id = try #require(delivered.notificationID)

                let (listData, _) = try await HTTP.call("GET", "\(api)/notifications")
                let list = try #require(try JSONSerialization.jsonObject(with: listData) as? [[String: Any]])
                #expect(list.first?["id"] as? String == id && list.first?["title"] as? String == "Local")
                let actions = list.first?["actions"] as? [[String: Any]]
                #expect(actions?.map { $0["identifier"] as? String } == ["foregroundAction", "destructiveTextAction"])

                let (badData, badStatus) = try await HTTP.call(
                    "POST", "\(api)/notifications/\(id)/respond", body: #"{"action": "nope"}"#)
                #expect(badStatus == 400)
                let refusal = String(decoding: badData, as: UTF8.self)
                #expect(
                    refusal.contains(
                        "its actions are default, dismiss, foregroundAction, destructiveTextAction"), "\(refusal)")
                #expect(!refusal.contains("ResponseError"), "one error, in words: \(refusal)")
                let (_, missing) = try await HTTP.call(
                    "POST", "\(api)/notifications/unknown/respond", body: #"{"action": "default"}"#)
                #expect(missing == 404)

                let (answerData, answered) = try await HTTP.call(
                    "POST", "\(api)/notifications/\(id)/respond",
                    body: #"{"action": "destructiveTextAction", "text": "ok"}"#)
                #expect(answered == 200)
                let answer = try #require(try JSONSerialization.jsonObject(with: answerData) as? [String: Any])
                #expect(answer["text"] as? String == "ok" && answer["dismissed"] as? Bool == true)
                #expect(try await log.next(.response).text == "ok")
                await device.stop()
            }
        }
    }
}
