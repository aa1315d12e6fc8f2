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
import UserNotifications

/// A live score as an iOS app writes it with ActivityKit, on a device connected to a running gateway, updated by a
/// provider through `APNSPushClient`.
struct ScoreAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable, Sendable {
        var score: String
    }

    var home: String
    var away: String
}

@Suite("ActivityKit on a simulated device: channels, tokens, push-to-start", .startsServers, .serialized)
struct ActivityKitTests {
    @Test("request with a channel, receive broadcasts (an older timestamp and a state of the wrong shape ignored), end")
    func channelActivity() async throws {
        try await withDevice { gateway, client, _ in
            let channel = try gateway.server.channels.create(
                for: BroadcastApp(bundleID: "com.example.app", environment: .development),
                storagePolicy: .noMessageStored)
            // The app's code, as on iOS.
            let activity = try Activity.request(
                attributes: ScoreAttributes(home: "Lions", away: "Tigers"),
                content: .init(state: .init(score: "0-0"), staleDate: nil), pushType: .channel(channel.id.rawValue))
            // As on iOS, request returns before the device has subscribed; the system says when it has.
            await ActivitySystem.shared.settled()
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

    @Test(
        "priority-10 updates past the activity's hourly budget are dropped; priority 5 is not counted; frequent updates"
    )
    func priority10Budget() async throws {
        try await withDevice { _, client, _ in
            let clock = ManualClock(start: Date())
            ActivitySystem.shared.setClock(clock)
            ActivitySystem.shared.setPriority10Budget(2)
            let activity = try Activity.request(
                attributes: ScoreAttributes(home: "Lions", away: "Tigers"),
                content: .init(state: .init(score: "0-0"), staleDate: nil), pushType: .token)
            await ActivitySystem.shared.settled()
            let token = try APNSDeviceToken(bytes: try #require(activity.pushToken)).hex
            var updates = activity.contentUpdates.makeAsyncIterator()
            func push(_ score: String, at timestamp: Int, priority: APNSPriority) async throws {
                let headers = APNSRequestHeaders(
                    pushType: .liveactivity, priority: priority, topic: "com.example.app.push-type.liveactivity")
                let aps = #"{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":{"score":"\#(score)"}}}"#
                #expect(
                    try await client.send(
                        APNSNotification(deviceToken: token, headers: headers, payload: ByteBuffer(string: aps))
                    ).isAccepted)
            }
            try await push("1-0", at: 1, priority: .immediate)
            #expect(await updates.next()?.state.score == "1-0")
            try await push("2-0", at: 2, priority: .immediate)
            #expect(await updates.next()?.state.score == "2-0")
            try await push("3-0", at: 3, priority: .immediate)  // the third in the hour: dropped
            try await push("3-1", at: 4, priority: .conservePower)  // priority 5 does not count
            #expect(await updates.next()?.state.score == "3-1", "3-0 was throttled")
            clock.advance(by: .seconds(3600))
            try await push("4-1", at: 5, priority: .immediate)
            #expect(await updates.next()?.state.score == "4-1", "an hour later the budget is back")

            // With NSSupportsLiveActivitiesFrequentUpdates (and the person leaving it on) the budget is larger.
            ActivitySystem.shared.setPriority10Budget(2, frequentUpdates: true)
            for (index, score) in ["5-1", "6-1", "7-1"].enumerated() {
                try await push(score, at: 6 + index, priority: .immediate)
                #expect(await updates.next()?.state.score == score)
            }
        }
    }

    @Test("a scheduled activity (iOS 26) is pending until its start on the device's clock, then active with its alert")
    func scheduledActivity() async throws {
        try await withDevice { _, _, _ in
            let clock = ManualClock(start: Date())
            ActivitySystem.shared.setClock(clock)
            let start = clock.currentDate.addingTimeInterval(3600)
            let activity = try Activity.request(
                attributes: ScoreAttributes(home: "Lions", away: "Tigers"),
                content: .init(state: .init(score: "0-0"), staleDate: nil), pushType: .token, style: .standard,
                alertConfiguration: AlertConfiguration(title: "Kick-off", body: "Lions v Tigers", sound: .default),
                start: start)
            #expect(activity.activityState == .pending)
            await ActivitySystem.shared.settled()
            #expect(activity.pushToken != nil, "a pending activity has its token already, for the provider")
            var states = activity.activityStateUpdates.makeAsyncIterator()
            clock.advance(by: .seconds(3599))
            #expect(activity.activityState == .pending)
            clock.advance(by: .seconds(1))
            #expect(activity.activityState == .active)
            #expect(await states.next() == .active)
            let snapshot = try #require(ActivitySystem.shared.snapshot(id: activity.id))
            #expect(snapshot.alert?.title == "Kick-off" && snapshot.alert?.shownAt == start)
            #expect(snapshot.startedAt == start, "its 8 hours count from the start")

            // A start that is not after now starts at once, as a plain request.
            let now = try Activity.request(
                attributes: ScoreAttributes(home: "A", away: "B"),
                content: .init(state: .init(score: "0-0"), staleDate: nil), pushType: nil, style: .transient,
                alertConfiguration: AlertConfiguration(title: "Now", body: "at once", sound: .named("goal.caf")),
                start: clock.currentDate.addingTimeInterval(-60))
            #expect(now.activityState == .active && now.activityStyle == .transient)
            #expect(ActivitySystem.shared.snapshot(id: now.id)?.alert?.sound == "goal.caf")
        }
    }

    @Test("update(_:alertConfiguration:) shows the alert; a push's alert does too; off for the app: request throws")
    func alerts() async throws {
        try await withDevice { _, client, _ in
            let activity = try Activity.request(
                attributes: ScoreAttributes(home: "Lions", away: "Tigers"),
                content: .init(state: .init(score: "0-0"), staleDate: nil), pushType: .token)
            await ActivitySystem.shared.settled()
            let team = "Lions"
            await activity.update(
                .init(state: .init(score: "1-0"), staleDate: nil),
                alertConfiguration: AlertConfiguration(title: "\(team) score!", body: "1-0", sound: .default))
            var alert = try #require(ActivitySystem.shared.snapshot(id: activity.id)?.alert)
            #expect(alert.title == "Lions score!" && alert.body == "1-0" && alert.sound == nil)

            var updates = activity.contentUpdates.makeAsyncIterator()
            let token = try #require(activity.pushToken)
            let headers = APNSRequestHeaders(
                pushType: .liveactivity, priority: .immediate, topic: "com.example.app.push-type.liveactivity")
            let aps =
                #"{"aps":{"event":"update","timestamp":30,"content-state":{"score":"1-1"},"#
                + #""alert":{"title":"Tigers score","body":"1-1"},"sound":"horn.caf"}}"#
            let result = try await client.send(
                APNSNotification(
                    deviceToken: try APNSDeviceToken(bytes: token).hex, headers: headers,
                    payload: ByteBuffer(string: aps)))
            #expect(result.isAccepted)
            #expect(await updates.next()?.state.score == "1-1")
            alert = try #require(ActivitySystem.shared.snapshot(id: activity.id)?.alert)
            #expect(alert.title == "Tigers score" && alert.body == "1-1" && alert.sound == "horn.caf")

            ActivitySystem.shared.setActivitiesEnabled(false)
            #expect(throws: ActivityAuthorizationError.denied) {
                _ = try Activity.request(
                    attributes: ScoreAttributes(home: "A", away: "B"),
                    content: .init(state: .init(score: "0-0"), staleDate: nil), pushType: nil, style: .standard,
                    alertConfiguration: AlertConfiguration(title: "x", body: "y", sound: .default),
                    start: Date().addingTimeInterval(60))
            }
            ActivitySystem.shared.setActivitiesEnabled(true)
        }
    }

    @Test("an ended activity is dismissed when the system's clock reaches its dismissal date, read and observed alike")
    func dismissalFollowsTheClock() async throws {
        try await withDevice { _, _, _ in
            // A clock a day behind real time: a state read on real time would say dismissed at once.
            let clock = ManualClock(start: Date().addingTimeInterval(-86_400))
            ActivitySystem.shared.setClock(clock)
            let activity = try Activity.request(
                attributes: ScoreAttributes(home: "Lions", away: "Tigers"),
                content: .init(state: .init(score: "0-0"), staleDate: nil), pushType: nil)
            var states = activity.activityStateUpdates.makeAsyncIterator()
            await activity.end(nil, dismissalPolicy: .after(clock.currentDate.addingTimeInterval(60)))
            #expect(activity.activityState == .ended, "60 s before its dismissal date on the system's clock")
            #expect(await states.next() == .ended)
            clock.advance(by: .seconds(61))
            #expect(activity.activityState == .dismissed)
            #expect(await states.next() == .dismissed)
        }
    }

    /// A gateway, a device whose courier feeds ActivityKit, and a provider's client; ActivityKit starts empty.
    private func withDevice(
        _ body: (TestGateway, APNSPushClient, CourierClient) async throws -> Void
    ) async throws {
        try await ExclusiveAccess.activitySystem.run { try await withGateway(body) }
    }

    private func withGateway(
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
            let client = try gateway.pushClient()
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
