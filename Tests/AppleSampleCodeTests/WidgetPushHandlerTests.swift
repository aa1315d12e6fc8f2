import APNSClient
import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import NIOCore
import TestPacing
import Testing
import WidgetKit

/// An app's WidgetKit push handlers (ScoreWidgetPushHandler.swift) on a device connected to a real local APNs: the
/// tokens reach the app's server code, `WidgetCenter.shared.currentPushInfo` has the widgets' token, and a provider's
/// `widgets` and `controls` pushes reload the timelines and the control.
@Suite("WidgetKit push handlers as Apple declares them, on a simulated device", .startsServers, .serialized)
struct WidgetPushHandlerTests {
    @Test("the tokens reach the handlers, a widgets push reloads every timeline, a controls push its control")
    func handlers() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.run {
            let courier = try await CourierClient.connect(
                host: "127.0.0.1", port: gateway.port, caPEM: gateway.server.certificateAuthority.caCertificatePEM)
            let system = WidgetSystem.shared
            system.reset()
            // What `.pushHandler(_:)` on the widget and control configurations does on iOS.
            system.configure(widgets: ["ScoreWidget", "TableWidget"], pushHandler: ScoreWidgetPushHandler.self)
            system.configure(controls: ["MuteControl"], pushHandler: MuteControlPushHandler.self)
            #expect(await WidgetCenter.shared.currentPushInfo == nil, "no token before the device issues one")

            // The device's side: tokens from APNs (the gateway), pushes handed to WidgetKit.
            let widgetToken = try await courier.register(bundleID: "com.example.score", environment: .development)
            system.issueWidgetToken(Data(widgetToken.token.bytes))
            let controlToken = try await courier.register(bundleID: "com.example.score", environment: .development)
            system.issueControlToken(Data(controlToken.token.bytes), kind: "MuteControl")
            let receiving = Task {
                for await event in courier.events {
                    guard case .notification(let push) = event else { continue }
                    _ = system.receivePush(
                        Data(push.payload), token: Data(push.token.bytes), pushType: push.pushType.rawValue)
                    courier.acknowledge(push)
                }
            }
            defer { receiving.cancel() }

            var widgetTokens = ScoreServer.widgetTokens.makeAsyncIterator()
            let sent = try #require(await widgetTokens.next())
            #expect(sent.0 == widgetToken.token.hex && sent.1 == ["ScoreWidget", "TableWidget"])
            var controlTokens = ScoreServer.controlTokens.makeAsyncIterator()
            #expect(await controlTokens.next() == ["MuteControl": controlToken.token.hex])
            #expect(await WidgetCenter.shared.currentPushInfo?.token == Data(widgetToken.token.bytes))

            let client = try gateway.pushClient()
            var reloads = system.reloads.makeAsyncIterator()
            for (token, type) in [(widgetToken.token.hex, APNSPushType.widgets), (controlToken.token.hex, .controls)] {
                let result = try await client.send(
                    APNSNotification(
                        deviceToken: token,
                        headers: APNSRequestHeaders(
                            pushType: type, priority: .conservePower, topic: "com.example.score.push-type.\(type)"),
                        payload: ByteBuffer(string: #"{"aps":{"content-changed":true}}"#)))
                #expect(result.isAccepted, "\(result)")
            }
            await client.shutdown()
            #expect(await reloads.next() == ["ScoreWidget", "TableWidget"])
            #expect(await reloads.next() == ["MuteControl"])
            #expect(system.status(of: "ScoreWidget").reloadsToday == 1)
            // The app asks too: WidgetCenter's reload counts against the same budget.
            WidgetCenter.shared.reloadTimelines(ofKind: "ScoreWidget")
            #expect(await reloads.next() == ["ScoreWidget"])
            #expect(system.status(of: "ScoreWidget").reloadsToday == 2)
            await courier.close()
        }
    }
}
