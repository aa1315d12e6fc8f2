import APNSClient
import APNSCore
import DeviceSimulator
import Foundation
import HeraldTesting
import NIOCore
import TestPacing
import Testing

/// WidgetKit pushes on a simulated device: tokens for widgets and controls, reloads, the daily budget.
@Suite("Widget and control pushes on a simulated device", .startsServers)
struct WidgetPushTests {
    @Test("a widgets push reloads every kind's timeline until its budget is spent; a controls push reloads its control")
    func reloadsAndBudget() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try AppManifest(
                data: Data(
                    (#"{"bundleID":"com.example.app","widgets":["ScoreWidget","TableWidget"],"controls":["Mute"],"#
                        + #""widgetReloadBudget":2}"#).utf8))
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            let widgetToken = try #require(
                try await log.next(.activity) { $0.message?.hasPrefix("widget push token") == true }.token)
            let controlToken = try #require(
                try await log.next(.activity) { $0.message?.hasPrefix("control push token for Mute") == true }.token)
            #expect(widgetToken != device.installedApps.first?.token, "the widgets have a token of their own")

            func push(_ token: String, _ type: APNSPushType, _ payload: String) async throws -> APNSResult {
                let headers = APNSRequestHeaders(
                    pushType: type, priority: .conservePower, topic: "com.example.app.push-type.\(type.rawValue)")
                return try await harness.client.send(
                    APNSNotification(deviceToken: token, headers: headers, payload: ByteBuffer(string: payload)))
            }
            let changed = #"{"aps":{"content-changed":true}}"#
            for _ in 0..<2 {
                #expect(try await push(widgetToken, .widgets, changed).isAccepted)
                let reload = try await log.next(.activity) { $0.message?.hasPrefix("timeline reloaded") == true }
                #expect(reload.message == "timeline reloaded: ScoreWidget, TableWidget")
            }
            #expect(try await push(widgetToken, .widgets, changed).isAccepted)
            let refused = try await log.next(.log)
            #expect(refused.message?.hasPrefix("timeline reload refused for ScoreWidget, TableWidget") == true)
            #expect(refused.message?.contains("daily budget of 2 reloads is spent") == true)

            #expect(try await push(widgetToken, .widgets, #"{"aps":{}}"#).isAccepted, "APNs does not read the payload")
            let ignored = try await log.next(.log)
            #expect(ignored.message?.hasPrefix("widget push ignored") == true)
            #expect(ignored.message?.contains("content-changed") == true)

            #expect(try await push(controlToken, .controls, changed).isAccepted)
            #expect(
                try await log.next(.activity) { $0.message?.hasPrefix("control reloaded") == true }.message?.hasSuffix(
                    "Mute") == true)

            let summary = try #require(device.widgetSummaries().first)
            #expect(summary.widgetPushToken == widgetToken)
            #expect(summary.widgets.map(\.reloadsToday) == [2, 2] && summary.widgets.map(\.refused) == [1, 1])
            #expect(summary.controls.first?.pushToken == controlToken && summary.controls.first?.reloadsToday == 1)
            await device.stop()
        }
    }

    @Test("a widget token pushed with the app's plain topic is refused by APNs' rules, not delivered")
    func wrongTopic() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try AppManifest(data: Data(#"{"bundleID":"com.example.app","widgets":["W"]}"#.utf8))
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            let token = try #require(
                try await log.next(.activity) { $0.message?.hasPrefix("widget push token") == true }.token)
            let result = try await harness.client.send(
                APNSNotification(
                    deviceToken: token,
                    headers: APNSRequestHeaders(pushType: .widgets, priority: .conservePower, topic: "com.example.app"),
                    payload: ByteBuffer(string: #"{"aps":{"content-changed":true}}"#)))
            guard case .rejected(let rejection) = result else {
                Issue.record("a widgets push to the bare bundle ID was accepted")
                return
            }
            #expect(rejection.status == 400)
            await device.stop()
        }
    }
}
