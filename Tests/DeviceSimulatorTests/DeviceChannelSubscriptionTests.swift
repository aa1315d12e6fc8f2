import APNSClient
import APNSCore
import APNSGateway
import ActivityKit
import Courier
import DeviceSimulator
import Foundation
import GatewayTestSupport
import HeraldTesting
import NIOCore
import Synchronization
import TestPacing
import Testing

@Suite("herald device --subscribe: a simulated device's apps listen to a channel", .startsServers)
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
            let acknowledged = await until(harness.gateway.server.channels.changes) {
                harness.gateway.server.channels.reports(channel: channel.id).first { $0.uniqueID == uniqueID }?
                    .acknowledged == 1
            }
            #expect(acknowledged)

            await device.stop()
            let unsubscribed = await until(harness.gateway.server.channels.changes) {
                harness.gateway.server.channels.subscriberCount(channel.id) == 0
            }
            #expect(unsubscribed, "a closed courier connection leaves no subscription behind")
        }
    }
}
