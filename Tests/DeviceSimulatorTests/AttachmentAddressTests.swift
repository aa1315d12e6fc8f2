import DeviceSimulator
import Foundation
import HeraldTesting
import TestPacing
import Testing

@Suite("Attachment downloads reach only public addresses unless allowed", .startsServers)
struct AttachmentAddressTests {
    @Test(
        "a media URL inside the device's network is refused with the option that allows it; the original shows",
        arguments: [
            "http://169.254.169.254/latest/meta-data/photo.jpg", "http://10.1.2.3/photo.jpg",
            "http://localhost:9/photo.jpg",
        ])
    func privateAddressRefused(url: String) async throws {
        try await DeviceHarness.with { harness in
            let manifest = try DeviceHarness.manifest(example: "002-image-download")
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            let log = DeviceEventLog(device)
            let payload = #"{"aps":{"alert":{"title":"New photo","body":"b"},"mutable-content":1},"image":"\#(url)"}"#
            let sent = try await harness.send(Data(payload.utf8), to: manifest.bundleID, on: device)
            let reason = try await log.next(.log) { $0.apnsID == sent }
            #expect(reason.message?.contains("--allow-attachment-host") == true, "\(reason.message ?? "")")
            _ = try await log.next(.displayed) { $0.apnsID == sent }
            let shown = try #require(await device.notifications().first)
            #expect(shown.title == "New photo" && shown.attachments.isEmpty)
            await device.stop()
        }
    }

    @Test("a redirect from an allowed host to a private address is not followed")
    func redirectInward() async throws {
        try await ExampleRun.with("002-image-download") { run in
            let inward = "http://127.0.0.1:\(run.media.port)/redirect?to=http://169.254.169.254/latest/photo.jpg"
            let payload =
                #"{"aps":{"alert":{"title":"New photo","body":"b"},"mutable-content":1},"image":"\#(inward)"}"#
            let sent = try await run.send(Data(payload.utf8))
            let reason = try await run.log.next(.log) { $0.apnsID == sent }
            #expect(reason.message?.contains("HTTP 302") == true, "\(reason.message ?? "")")
            _ = try await run.log.next(.displayed) { $0.apnsID == sent }
            #expect(try #require(await run.device.notifications().first).attachments.isEmpty)
        }
    }
}
