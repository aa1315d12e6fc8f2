import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

/// The provider's WidgetKit tokens: registered apart from activity tokens, targeted with `{"widgets": ...}`, sent with
/// the `widgets` or `controls` push type to the suffixed topic, and refused when WidgetKit would do nothing with them.
@Suite("WidgetKit pushes through the provider", .startsServers)
struct WidgetProviderTests {
    @Test("widget and control tokens: registered, listed apart from activity tokens, checked, deleted")
    func widgetTokens() async throws {
        try await ProviderHarness.with { harness in
            var (status, answer) = try await harness.call(
                "POST", "/v1/widgets/tokens", body: ["token": "AA01", "kind": "widgets", "userID": "ana"])
            #expect(status == 201 && answer["token"].string == "aa01" && answer["kind"].string == "widgets")
            (status, answer) = try await harness.call(
                "POST", "/v1/widgets/tokens", body: ["token": "bb02", "kind": "control", "control": "Mute"])
            #expect(status == 201 && answer["control"].string == "Mute", "\(answer)")
            _ = try await harness.call(
                "POST", "/v1/activities/tokens",
                body: ["token": "cc03", "kind": "pushToStart", "attributesType": "ScoreAttributes"])

            (_, answer) = try await harness.call("GET", "/v1/widgets/tokens")
            #expect(answer.array.map { $0["token"].string } == ["aa01", "bb02"], "\(answer)")
            (_, answer) = try await harness.call("GET", "/v1/widgets/tokens?control=Mute")
            #expect(answer.array.map { $0["token"].string } == ["bb02"], "\(answer)")
            (_, answer) = try await harness.call("GET", "/v1/activities/tokens")
            #expect(answer.array.map { $0["token"].string } == ["cc03"], "activity tokens only: \(answer)")

            for (body, field) in [
                (["token": "dd", "kind": "widget"], "kind"),
                (["token": "dd", "kind": "control"], "control"),
                (["token": "dd", "kind": "widgets", "control": "Mute"], "control"),
                (["token": "dd", "kind": "control", "control": String(repeating: "m", count: 257)], "control"),
                (["token": "xyz", "kind": "widgets"], "token"),
                (["token": "dd", "kind": "widgets", "attributesType": "T"], "attributesType"),
            ] {
                (status, answer) = try await harness.call("POST", "/v1/widgets/tokens", body: body)
                #expect(status == 400 && answer["error"]["field"].string == field, "\(body): \(answer)")
            }
            (status, _) = try await harness.call("DELETE", "/v1/widgets/tokens/cc03")
            #expect(status == 404, "an activity token is not deleted through the widgets route")
            (status, _) = try await harness.call("DELETE", "/v1/widgets/tokens/aa01")
            #expect(status == 204)
            (status, _) = try await harness.call("DELETE", "/v1/widgets/tokens/aa01")
            #expect(status == 404)
        }
    }

    @Test("a widgets target sends content-changed with push type widgets; a control's with controls")
    func pushToWidgets() async throws {
        try await ProviderHarness.with { harness in
            let widgetToken = try harness.gatewayToken()
            let controlToken = try harness.gatewayToken()
            _ = try await harness.call(
                "POST", "/v1/widgets/tokens", body: ["token": widgetToken, "kind": "widgets", "userID": "ana"])
            _ = try await harness.call(
                "POST", "/v1/widgets/tokens", body: ["token": controlToken, "kind": "control", "control": "Mute"])

            var (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["widgets": ["user": "ana"]]])
            #expect(status == 202 && created["pushType"].string == "widgets", "\(created)")
            #expect(created["stats"]["targeted"].int == 1)
            var report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == 1, "\(report)")
            var stored = try #require(
                harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: widgetToken)))
            #expect(stored.pushType == .widgets && stored.topic == ProviderHarness.bundleID + ".push-type.widgets")
            #expect(String(decoding: stored.payload, as: UTF8.self) == #"{"aps":{"content-changed":true}}"#)

            (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["widgets": ["control": "Mute"]], "priority": 5])
            #expect(status == 202 && created["pushType"].string == "controls", "\(created)")
            report = try await harness.finished(try #require(created["id"].string))
            #expect(report["stats"]["accepted"].int == 1, "\(report)")
            stored = try #require(
                harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: controlToken)))
            #expect(stored.pushType == .controls && stored.topic == ProviderHarness.bundleID + ".push-type.controls")

            // What WidgetKit would do nothing with is refused before anything is stored.
            for (body, field) in [
                (["target": ["widgets": [:]], "payload": ["aps": ["alert": "hi"]]], "payload.aps"),
                (
                    ["target": ["widgets": [:]], "payload": ["aps": ["content-changed": 1]]],
                    "payload.aps.content-changed"
                ),
                (
                    ["target": ["widgets": [:]], "payload": ["aps": ["content-changed": true, "badge": 1]]],
                    "payload.aps.badge"
                ),
                (["target": ["widgets": [:]], "pushType": "alert"], "pushType"),
                (["target": ["widgets": [:]], "encrypted": ["a": 1]], "encrypted"),
                (["target": ["widgets": [:]], "dailyAt": "07:00"], "dailyAt"),
                (["target": ["widgets": ["kind": "Mute"]]], "target.widgets.kind"),
                (["target": ["widgets": [:], "user": "ana"]], "target"),
            ] as [([String: Any], String)] {
                let (status, answer) = try await harness.call("POST", "/v1/notifications", body: body)
                #expect(status == 400 && answer["error"]["field"].string == field, "\(body): \(answer)")
            }
        }
    }
}
