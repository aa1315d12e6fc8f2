import DeviceSimulator
import Foundation
import HeraldTesting

/// One of the repository's examples installed on a simulated device: its media served on loopback, a fresh local
/// APNs, the device and the log of its events.
struct ExampleRun {
    let example: String
    let media: MediaServer
    let harness: DeviceHarness
    let manifest: AppManifest
    let device: SimulatedDevice
    let log: DeviceEventLog

    /// Runs `body` with `example` installed on a new device, then stops the device.
    static func with(_ example: String, _ body: (ExampleRun) async throws -> Void) async throws {
        try await MediaServer.serving(DeviceHarness.examples.appendingPathComponent("\(example)/media")) { media in
            try await DeviceHarness.with { harness in
                let manifest = try DeviceHarness.manifest(example: example)
                let device = try await SimulatedDevice.start(harness.configuration([manifest]))
                let run = ExampleRun(
                    example: example, media: media, harness: harness, manifest: manifest, device: device,
                    log: DeviceEventLog(device))
                do {
                    try await body(run)
                } catch {
                    await device.stop()
                    throw error
                }
                await device.stop()
            }
        }
    }

    /// Sends `payload` to the example's app; the apns-id the local APNs accepted it with.
    func send(_ payload: Data) async throws -> String {
        try await harness.send(payload, to: manifest.bundleID, on: device)
    }

    /// Sends the example's payload `file`, its media links pointed at this run's media server.
    func send(file: String) async throws -> String {
        try await send(media.pointing(try DeviceHarness.payload(example: example, file)))
    }
}
