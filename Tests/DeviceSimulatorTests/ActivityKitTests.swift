import APNSClient
import APNSCore
import APNSGateway
import ActivityKit
import Courier
import DeviceSimulator
import Foundation
import GatewayTestSupport
import NIOCore
import Testing

/// A live score as an iOS app writes it with ActivityKit, on a device connected to a running gateway, updated by a
/// provider through `APNSPushClient`.
struct ScoreAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable, Sendable {
        var score: String
    }

    var home: String
    var away: String
}

@Suite("ActivityKit on a simulated device: channels, tokens, push-to-start", .serialized, .timeLimit(.minutes(1)))
struct ActivityKitTests {
    @Test("request with a channel, receive broadcasts (an older timestamp and a state of the wrong shape ignored), end")
    func channelActivity() async throws {
        try await withDevice { gateway, client, _ in
            let channel = try gateway.server.channels.create(
                for: BroadcastApp(bundleID: "com.example.app", environment: .development),
                storagePolicy: .noMessageStored)
            // The app's code, as on iOS.
            let activity = try await Activity.request(
                attributes: ScoreAttributes(home: "Lions", away: "Tigers"),
                content: .init(state: .init(score: "0-0"), staleDate: nil), pushType: .channel(channel.id.rawValue))
            #expect(activity.activityState == .active)
            #expect(Activity<ScoreAttributes>.activities.map(\.id) == [activity.id])
            var updates = activity.contentUpdates.makeAsyncIterator()

            // The provider's broadcasts.
            func broadcast(_ aps: String) async throws {
                let result = try await client.send(
                    APNSNotification(
                        broadcast: APNSBroadcast(
                            bundleID: "com.example.app", headers: APNSBroadcastHeaders(channelID: channel.id)),
                        payload: ByteBuffer(string: #"{"aps":\#(aps)}"#)))
                #expect(result.isAccepted, "\(result)")
            }
            try await broadcast(#"{"event":"update","timestamp":100,"content-state":{"score":"1-0"}}"#)
            #expect(await updates.next()?.state.score == "1-0")
            // A content state that does not decode as ScoreAttributes.ContentState is ignored, never handed to the
            // app (it used to be kept, and reading `content` then trapped).
            let malformed = #"{"aps":{"event":"update","timestamp":150,"content-state":{"score":5}}}"#
            #expect(!ActivitySystem.shared.receiveBroadcast(Data(malformed.utf8), channel: channel.id.rawValue))
            #expect(activity.content.state.score == "1-0")
            try await broadcast(#"{"event":"update","timestamp":50,"content-state":{"score":"9-9"}}"#)

            try await broadcast(#"{"event":"end","timestamp":200,"content-state":{"score":"2-1"}}"#)
            #expect(await updates.next()?.state.score == "2-1", "the older and the malformed updates were ignored")
            #expect(activity.activityState == .ended)
            #expect(activity.content.state.score == "2-1")
        }
    }

    @Test("push-to-start creates an activity with its own token; a device push updates it; the app ends it")
    func pushToStart() async throws {
        try await withDevice { gateway, client, _ in
            let startToken = try #require(await Activity<ScoreAttributes>.pushToStartToken)
            var started = Activity<ScoreAttributes>.activityUpdates.makeAsyncIterator()
            func push(_ token: Data, _ aps: String) async throws {
                let headers = APNSRequestHeaders(
                    pushType: .liveactivity, priority: .immediate, topic: "com.example.app.push-type.liveactivity")
                let result = try await client.send(
                    APNSNotification(
                        deviceToken: try APNSDeviceToken(bytes: token).hex, headers: headers,
                        payload: ByteBuffer(string: #"{"aps":\#(aps)}"#)))
                #expect(result.isAccepted, "\(result)")
            }
            try await push(
                startToken,
                #"{"event":"start","timestamp":10,"attributes-type":"ScoreAttributes","#
                    + #""attributes":{"home":"Lions","away":"Bears"},"content-state":{"score":"0-0"},"#
                    + #""alert":{"title":"Kick-off","body":"Lions v Bears"},"input-push-token":1}"#)
            let activity = try #require(await started.next())
            #expect(activity.attributes.away == "Bears")
            #expect(activity.content.state.score == "0-0")
            let token = try #require(activity.pushToken)
            #expect(token != startToken)
            var updates = activity.contentUpdates.makeAsyncIterator()
            try await push(token, #"{"event":"update","timestamp":20,"content-state":{"score":"1-0"}}"#)
            #expect(await updates.next()?.state.score == "1-0")
            await activity.end(.init(state: .init(score: "1-0"), staleDate: nil), dismissalPolicy: .immediate)
            #expect(activity.activityState != .active)
        }
    }

    /// A gateway, a device whose courier feeds ActivityKit, and a provider's client; ActivityKit starts empty.
    private func withDevice(
        _ body: (TestGateway, APNSPushClient, CourierClient) async throws -> Void
    ) async throws {
        let gateway = try await TestGateway.start()
        try await gateway.run {
            let courier = try await CourierClient.connect(
                host: "127.0.0.1", port: gateway.port, caPEM: gateway.server.certificateAuthority.caCertificatePEM)
            let app = try await courier.register(bundleID: "com.example.app", environment: .development)
            let system = ActivitySystem.shared
            system.reset()
            system.attach(
                CourierActivityTransport(
                    courier: courier, appToken: app.token, bundleID: "com.example.app", environment: .development))
            let receiving = Task {
                for await event in courier.events {
                    CourierActivityTransport.deliver(event, to: system, on: courier)
                }
            }
            let client = try APNSPushClient(
                configuration: .init(
                    endpoint: APNSEndpoint(
                        host: "127.0.0.1", port: gateway.port,
                        additionalTrustRootsPEM: gateway.server.certificateAuthority.caCertificatePEM),
                    authentication: .token(gateway.signer)))
            do {
                try await body(gateway, client, courier)
            } catch {
                await client.shutdown()
                await courier.close()
                throw error
            }
            await client.shutdown()
            await courier.close()
            receiving.cancel()
        }
    }
}

@Suite("herald device --subscribe: a simulated device's apps listen to a channel", .timeLimit(.minutes(1)))
struct DeviceChannelSubscriptionTests {
    @Test("subscribed on connect, a broadcast is acknowledged; the subscription ends when the device stops")
    func subscribeOnConnect() async throws {
        try await DeviceHarness.with { harness in
            let channel = try harness.gateway.server.channels.create(
                for: BroadcastApp(bundleID: "com.example.app", environment: .development),
                storagePolicy: .noMessageStored)
            var configuration = harness.configuration([
                try AppManifest(data: Data(#"{"bundleID":"com.example.app"}"#.utf8))
            ])
            configuration.channelSubscriptions = [channel.id.rawValue]
            let device = try await SimulatedDevice.install(configuration)
            try await device.connect()
            #expect(harness.gateway.server.channels.subscriberCount(channel.id) == 1)

            let result = try await harness.client.send(
                APNSNotification(
                    broadcast: APNSBroadcast(
                        bundleID: "com.example.app", headers: APNSBroadcastHeaders(channelID: channel.id)),
                    payload: ByteBuffer(string: #"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#)))
            guard case .accepted(let acceptance) = result else {
                Issue.record("the broadcast was not accepted: \(result)")
                return
            }
            let uniqueID = try #require(acceptance.uniqueID.flatMap(UUID.init(uuidString:)))
            let acknowledged = await eventually {
                harness.gateway.server.channels.reports(channel: channel.id).first { $0.uniqueID == uniqueID }?
                    .acknowledged == 1
            }
            #expect(acknowledged)

            await device.stop()
            let unsubscribed = await eventually { harness.gateway.server.channels.subscriberCount(channel.id) == 0 }
            #expect(unsubscribed, "a closed courier connection leaves no subscription behind")
        }
    }
}
