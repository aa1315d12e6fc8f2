import APNSClient
import APNSCore
import APNSGateway
import DeviceSimulator
import Foundation
import GatewayTestSupport
import HeraldTesting
import NIOCore
import TestPacing
import Testing

/// examples/005-live-score on a simulated device: its manifest's activity type gets a push-to-start token; a push to
/// it starts an activity subscribed to a channel; broadcasts update and end it. The device's own activity actions
/// (its JSON API and terminal call them) start, update and end one too.
@Suite("005 live score: Live Activities on a simulated device", .startsServers)
struct LiveScoreExampleTests {
    static let bundleID = "com.example.livescore"

    @Test("started by push-to-start on a channel, updated and ended by broadcasts, as the README says")
    func liveScore() async throws {
        try await DeviceHarness.with { harness in
            let device = try await SimulatedDevice.start(
                harness.configuration([try DeviceHarness.manifest(example: "005-live-score")]))
            defer { Task { await device.stop() } }
            let log = DeviceEventLog(device)
            let startToken = try #require(await device.pushToStartTokens()[Self.bundleID]?["ScoreAttributes"])
            let channel = try harness.gateway.server.channels.create(
                for: BroadcastApp(bundleID: Self.bundleID, environment: .development),
                storagePolicy: .mostRecentMessageStored)

            let start = String(
                decoding: try DeviceHarness.payload(example: "005-live-score", "start.json"), as: UTF8.self
            ).replacingOccurrences(of: "CHANNEL_ID", with: channel.id.rawValue)
            let headers = APNSRequestHeaders(
                pushType: .liveactivity, priority: .immediate, topic: Self.bundleID + ".push-type.liveactivity")
            let started = try await harness.client.send(
                APNSNotification(deviceToken: startToken, headers: headers, payload: ByteBuffer(string: start)))
            #expect(started.isAccepted, "\(started)")
            try await Self.untilActivity(log) { !device.activities().isEmpty }
            let activity = device.activities().first
            #expect(activity?.channel == channel.id.rawValue && activity?.contentState == ["score": "0-0"])
            #expect(activity?.attributes["home"]?.string == "Lions" && activity?.attributes["away"]?.string == "Tigers")
            #expect(harness.gateway.server.channels.subscriberCount(channel.id) == 1)

            func broadcast(_ file: String) async throws {
                let result = try await harness.client.send(
                    APNSNotification(
                        broadcast: APNSBroadcast(
                            bundleID: Self.bundleID,
                            headers: APNSBroadcastHeaders(channelID: channel.id, expiration: .immediately)),
                        payload: ByteBuffer(bytes: try DeviceHarness.payload(example: "005-live-score", file))))
                #expect(result.isAccepted, "\(result)")
            }
            try await broadcast("update.json")
            try await Self.untilActivity(log) { device.activities().first?.contentState == ["score": "1-0"] }
            try await broadcast("end.json")
            try await Self.untilActivity(log) { device.activities().first?.state == "ended" }
            #expect(device.activities().first?.contentState == ["score": "2-1"])
            #expect(
                await until(harness.gateway.server.channels.changes) {
                    harness.gateway.server.channels.subscriberCount(channel.id) == 0
                },
                "the ended activity's channel is no longer held")
        }
    }

    @Test("started from the device with its own push token, updated by a device push and by the app, ended")
    func startedOnTheDevice() async throws {
        try await DeviceHarness.with { harness in
            let device = try await SimulatedDevice.start(
                harness.configuration([try DeviceHarness.manifest(example: "005-live-score")]))
            defer { Task { await device.stop() } }
            let log = DeviceEventLog(device)
            let started = try await device.startActivity(
                bundleID: Self.bundleID, type: "ScoreAttributes", attributes: nil, contentState: nil, channel: nil,
                pushToken: true)
            #expect(started.contentState == ["score": "0-0"], "the manifest's sample state")
            let token = try #require(started.pushToken)

            let headers = APNSRequestHeaders(
                pushType: .liveactivity, priority: .conservePower, topic: Self.bundleID + ".push-type.liveactivity")
            let pushed = try await harness.client.send(
                APNSNotification(
                    deviceToken: token, headers: headers,
                    payload: ByteBuffer(bytes: try DeviceHarness.payload(example: "005-live-score", "update.json"))))
            #expect(pushed.isAccepted, "\(pushed)")
            try await Self.untilActivity(log) { device.activities().first?.contentState == ["score": "1-0"] }

            #expect(
                try device.updateActivity(id: started.id, contentState: ["score": "1-1"]).contentState == [
                    "score": "1-1"
                ])
            #expect(try device.endActivity(id: started.id, contentState: nil, immediately: true).state == "dismissed")
            #expect(throws: DeviceError.self) {
                try device.updateActivity(id: started.id, contentState: ["score": "9"])
            }
            // The ended activity's token is invalid, as on iOS: once the device has told the gateway, APNs answers
            // 410 Unregistered.
            let registry = harness.gateway.server.registry
            let ended = try APNSDeviceToken(hex: token)
            #expect(await until(registry.changes) { registry.device(for: ended)?.invalidation != nil })
            let result = try await harness.client.send(
                APNSNotification(
                    deviceToken: token, headers: headers,
                    payload: ByteBuffer(string: #"{"aps":{"event":"update","timestamp":9,"content-state":{}}}"#)))
            guard case .rejected(let rejection) = result else {
                Issue.record("a push to an ended activity's token was \(result)")
                return
            }
            #expect(rejection.status == 410, "a push to an ended activity's token is 410")
            #expect(throws: DeviceError.self) {
                try device.endActivity(id: "nope", contentState: nil, immediately: true)
            }
            await #expect(throws: DeviceError.self) {
                try await device.startActivity(
                    bundleID: Self.bundleID, type: "FlightAttributes", attributes: nil, contentState: nil,
                    channel: nil, pushToken: false)
            }
            await #expect(throws: DeviceError.self) {
                try await device.startActivity(
                    bundleID: Self.bundleID, type: "ScoreAttributes", attributes: nil, contentState: "not an object",
                    channel: nil, pushToken: false)
            }
        }
    }

    @Test("a manifest's activity type needs a name")
    func activityTypeName() {
        #expect(throws: AppManifestError.self) {
            try AppManifest(data: Data(#"{"bundleID":"com.example.a","activityTypes":[{"name":""}]}"#.utf8))
        }
    }

    /// Waits until `condition` holds, checking it again after each of the device's activity events (started,
    /// updated, ended), never on a timer.
    ///
    /// - Throws: when no activity event comes for 20 s while it does not hold.
    static func untilActivity(_ log: DeviceEventLog, _ condition: () -> Bool) async throws {
        while !condition() { _ = try await log.next(.activity) }
    }
}
