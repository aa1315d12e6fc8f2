import APNSCore
import DeviceSimulator
import Foundation
import GatewayTestSupport
import HeraldTesting
import TestPacing
import Testing
import UserNotifications

/// Every example in `examples/` run through gateway, client and device, as its README says.
@Suite("Examples, end to end", .startsServers)
struct ExampleTests {
    @Test("000 RITL demo: the service extension's rewrite, the categories' actions, an update by collapse ID, a reply")
    func ritlDemo() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try DeviceHarness.manifest(example: "000-ritl-demo")
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            let first = try await harness.send(
                DeviceHarness.payload(example: "000-ritl-demo", "push.json"), to: manifest.bundleID, on: device,
                collapseID: "session")
            _ = try await log.next(.displayed) { $0.apnsID == first }
            var shown = try #require(await device.notifications().first)
            #expect(shown.title == "hello")
            #expect(shown.subtitle == "Session 01")
            #expect(shown.body == "我是在Service里面修改后的title")
            #expect(shown.badge == 1)
            #expect(shown.actions.map(\.identifier) == ["foregroundAction", "destructiveTextAction"])
            #expect(shown.actions[1].textInput && shown.actions[1].textInputButtonTitle == "发送")
            #expect(shown.actions[1].options == ["destructive", "foreground"])

            let second = try await harness.send(
                DeviceHarness.payload(example: "000-ritl-demo", "update.json"), to: manifest.bundleID, on: device,
                collapseID: "session")
            _ = try await log.next(.displayed) { $0.apnsID == second }
            let all = await device.notifications()
            #expect(all.count == 1)
            shown = try #require(all.first)
            #expect(shown.id == second && shown.subtitle == "Session 02" && shown.requestIdentifier == "session")
            #expect(device.installedApps.first?.badge == 2)

            let outcome = try await device.respond(to: second, action: "destructiveTextAction", text: "很好")
            #expect(outcome.deliveredToApp)
            let response = try await log.next(.response)
            #expect(response.action == "destructiveTextAction" && response.text == "很好")
            #expect(await device.notifications().isEmpty)
            await device.stop()
        }
    }

    @Test("001 invitation with rich media: four actions with their options, a PNG attachment")
    func invitation() async throws {
        try await ExampleRun.with("001-invitation-rich-media") { run in
            let apnsID = try await run.send(file: "push.json")
            _ = try await run.log.next(.displayed) { $0.apnsID == apnsID }
            let shown = try #require(await run.device.notifications().first)
            #expect(shown.categoryIdentifier == "selfoption")
            #expect(
                shown.actions.map(\.options) == [
                    ["authenticationRequired"], ["foreground"], ["destructive"], ["foreground"],
                ])
            #expect(shown.actions.map(\.textInput) == [false, false, false, true])
            let attachment = try #require(shown.attachments.first)
            #expect(attachment.identifier == "media" && attachment.type == "public.png")
            #expect(FileManager.default.fileExists(atPath: attachment.path))
            try await run.device.respond(to: apnsID, action: "action.join")
            #expect(try await run.log.next(.response).action == "action.join")
        }
    }

    @Test("002 image download: title rewritten and the JPEG attached; a link of the wrong type shows the original")
    func imageDownload() async throws {
        try await ExampleRun.with("002-image-download") { run in
            let good = try await run.send(file: "push.json")
            _ = try await run.log.next(.displayed) { $0.apnsID == good }
            var shown = try #require(await run.device.notifications().first)
            #expect(shown.title == "New photo [modified]")
            #expect(shown.attachments.map(\.type) == ["public.jpeg"])

            let bad = try await run.send(file: "wrong-type.json")
            let reason = try await run.log.next(.log) { $0.apnsID == bad }
            #expect(reason.message?.contains("not a supported image, audio or movie type") == true)
            _ = try await run.log.next(.displayed) { $0.apnsID == bad }
            shown = try #require(await run.device.notifications().first)
            #expect(shown.id == bad && shown.title == "New photo" && shown.attachments.isEmpty)
        }
    }

    @Test("003 seeCategory and seeCategory1: a GIF in the foreground, a text reply reported to the provider")
    func dynamicCategoriesAndReplyLoop() async throws {
        let example = "003-dynamic-categories"
        try await MediaServer.serving(DeviceHarness.examples.appendingPathComponent("\(example)/media")) { media in
            try await PostRecorder.running(paths: ["register", "reports"]) { provider in
                try await DeviceHarness.with { harness in
                    let manifest = try DeviceHarness.manifest(example: example)
                    var configuration = harness.configuration([manifest])
                    configuration.registerURL = provider.url("register")
                    configuration.reportURL = provider.url("reports")
                    let device = try await SimulatedDevice.start(configuration)
                    let log = DeviceEventLog(device)
                    let gif = try await harness.send(
                        media.pointing(try DeviceHarness.payload(example: example, "push-gif.json")),
                        to: manifest.bundleID, on: device)
                    _ = try await log.next(.displayed) { $0.apnsID == gif }
                    let shown = try #require(await device.notifications().first)
                    #expect(shown.attachments.map(\.type) == ["com.compuserve.gif"])
                    #expect(shown.actions.map(\.title) == ["I love it~", "I don't care~"])

                    let comment = try await harness.send(
                        try DeviceHarness.payload(example: example, "push-comment.json"), to: manifest.bundleID,
                        on: device)
                    _ = try await log.next(.displayed) { $0.apnsID == comment }
                    try await device.respond(to: comment, action: "text", text: "To the moon!")
                    _ = try await log.next(.response)
                    await device.stop()

                    let registration = try #require(provider.bodies("register").first)
                    #expect(registration["token"] as? String == device.installedApps.first?.token)
                    #expect(registration["bundleID"] as? String == "com.example.see")
                    #expect((registration["publicKey"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 32)
                    let reports = provider.bodies("reports")
                    let reply = try #require(reports.first { $0["event"] as? String == "response" })
                    #expect(reply["apnsID"] as? String == comment)
                    #expect(reply["action"] as? String == "text" && reply["text"] as? String == "To the moon!")
                    #expect(reply["token"] as? String == device.installedApps.first?.token)
                    #expect(reply["time"] is String)
                    let events = reports.compactMap { $0["event"] as? String }
                    #expect(events.filter { $0 == "delivered" }.count == 2)
                    #expect(events.filter { $0 == "displayed" }.count == 2)
                }
            }
        }
    }

    @Test("004 content extension: the expanded view shows the downloaded image; an action reaches the app")
    func contentExtension() async throws {
        try await ExampleRun.with("004-content-extension") { run in
            let apnsID = try await run.send(file: "push.json")
            _ = try await run.log.next(.displayed) { $0.apnsID == apnsID }
            let expanded = try await run.device.expand(apnsID)
            let view = try #require(expanded.contentExtension)
            #expect(view.title == "Content extension" && view.body == "Expand me")
            #expect(view.imagePath == expanded.attachments.first?.path && view.imagePath != nil)
            let outcome = try await run.device.respond(to: apnsID, action: "input", text: "hello")
            #expect(outcome.deliveredToApp && outcome.dismissed)
        }
    }
}
