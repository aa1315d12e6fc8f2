import APNSClient
import APNSCore
import APNSGateway
import ActivityKit
import Courier
import DeviceSimulator
import Foundation
import GatewayTestSupport
import NIOCore
import TestPacing
import Testing

/// Apple's article code (EmojiRangerActivity.swift) run on a device connected to a real local APNs: its token
/// reaches the app's server code, a provider's push updates it, its alert update and its end are what iOS shows.
@Suite("Apple's ActivityKit article code, unchanged, on a simulated device", .startsServers, .serialized)
struct AppleArticleActivityTests {
    @Test("start with a push token, a push update, an update that alerts, the end")
    func adventure() async throws {
        try await ExclusiveAccess.activitySystem.run { try await run() }
    }

    private func run() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.run {
            let courier = try await CourierClient.connect(
                host: "127.0.0.1", port: gateway.port, caPEM: gateway.server.certificateAuthority.caCertificatePEM)
            let app = try await courier.register(bundleID: "com.example.emojirangers", environment: .development)
            let system = ActivitySystem.shared
            system.reset()
            system.attach(
                CourierActivityTransport(
                    courier: courier, appToken: app.token, bundleID: "com.example.emojirangers",
                    environment: .development))
            let receiving = Task {
                for await event in courier.events { CourierActivityTransport.deliver(event, to: system, on: courier) }
            }
            defer { receiving.cancel() }

            let model = AdventureViewModel()
            model.observePushToStartTokens()
            var pushToStart = model.sentPushToStartTokens.makeAsyncIterator()
            #expect(await pushToStart.next()?.count == 64, "the push-to-start token reached the app's server code")

            let hero = EmojiRanger(name: "Power Panda", healthLevel: 0.9)
            model.startAdventure(hero: hero)
            let activity = try #require(model.activity)
            #expect(activity.activityState == .active)
            var tokens = model.sentTokens.makeAsyncIterator()
            let token = try #require(await tokens.next())
            #expect(token == activity.pushToken?.map { String(format: "%02x", $0) }.joined())

            // The provider updates it with the article's payload.
            let client = try gateway.pushClient()
            var contents = activity.contentUpdates.makeAsyncIterator()
            let result = try await client.send(
                APNSNotification(
                    deviceToken: token,
                    headers: APNSRequestHeaders(
                        pushType: .liveactivity, priority: .immediate,
                        topic: "com.example.emojirangers.push-type.liveactivity"),
                    payload: ByteBuffer(
                        string: #"{"aps":{"timestamp":1685952000,"event":"update","content-state":"#
                            + #"{"currentHealthLevel":0.0,"eventDescription":"Power Panda has been knocked down!"}}}"#))
            )
            await client.shutdown()
            #expect(result.isAccepted, "\(result)")
            #expect(await contents.next()?.state.eventDescription == "Power Panda has been knocked down!")

            model.heroTookCriticalHit(hero: EmojiRanger(name: "Power Panda", healthLevel: 0.1))
            let alerted = await contents.next()
            #expect(alerted?.state.eventDescription == "Power Panda has taken a critical hit!")
            #expect(alerted?.relevanceScore == 50)
            let alert = try #require(system.snapshot(id: activity.id)?.alert)
            #expect(alert.title == "Power Panda has been knocked down!")
            #expect(alert.body == "Open the app and use a potion to heal Power Panda.")

            var states = model.seenStates.makeAsyncIterator()
            await model.endAdventure()
            #expect(await states.next() == .ended)
            #expect(activity.content.state.eventDescription == "🏁 The adventure is over! 🏁")
            await courier.close()
        }
    }
}
