import APNSClient
import APNSCore
import APNSGateway
import DeviceSimulator
import Foundation
import GatewayTestSupport
import HeraldTesting
import NIOCore
import Synchronization
import TestPacing
import Testing

/// A live local APNs (HeraldTesting's), a provider's APNSPushClient to it, and simulated devices connected to it.
struct DeviceHarness {
    let gateway: LocalAPNs
    let client: APNSPushClient

    /// The repository's `examples/` folder.
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")

    /// Runs `body` against a fresh local APNs, then stops the client and the local APNs.
    static func with(_ body: (DeviceHarness) async throws -> Void) async throws {
        ServerSlots.requireSlot("a local APNs")
        try await LocalAPNs.run { gateway in
            let client = try gateway.makeClient()
            do {
                try await body(DeviceHarness(gateway: gateway, client: client))
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }

    /// A device configuration for this gateway with the given manifests.
    func configuration(
        _ manifests: [AppManifest],
        data: URL = FileManager.default.temporaryDirectory.appendingPathComponent("device-\(UUID().uuidString)")
    ) -> SimulatedDevice.Configuration {
        var configuration = gateway.deviceConfiguration(apps: manifests)
        configuration.dataDirectory = data
        // The tests' media servers listen on loopback, which downloads may reach only when allowed.
        configuration.allowedAttachmentHosts = ["127.0.0.1"]
        return configuration
    }

    /// Runs `body` with `device`'s JSON API listening on a free port; `body` gets the API's base URL.
    static func withAPI(of device: SimulatedDevice, _ body: (String) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        try await whileServing({
            try await DeviceAPI(device: device).run(host: "127.0.0.1", port: 0) { continuation.yield($0) }
        }) {
            var iterator = ports.makeAsyncIterator()
            try await body("http://127.0.0.1:\(try #require(await iterator.next()))")
        }
    }

    /// Reads an example's manifest.
    static func manifest(example: String, file: String = "app.json") throws -> AppManifest {
        try AppManifest(data: Data(contentsOf: examples.appendingPathComponent("\(example)/\(file)")))
    }

    /// Reads an example's payload file.
    static func payload(example: String, _ file: String) throws -> Data {
        try Data(contentsOf: examples.appendingPathComponent("\(example)/\(file)"))
    }

    /// Sends `payload` to the app's token on `device`; returns the apns-id the gateway accepted it with.
    @discardableResult
    func send(
        _ payload: Data, to bundleID: String, on device: SimulatedDevice, collapseID: String? = nil
    ) async throws -> String {
        let token = try #require(device.installedApps.first { $0.bundleID == bundleID }?.token)
        var headers = APNSRequestHeaders(topic: bundleID)
        headers.collapseID = collapseID.flatMap(APNSCollapseID.init(rawValue:))
        let result = try await client.send(
            APNSNotification(deviceToken: token, headers: headers, payload: ByteBuffer(bytes: Array(payload))))
        guard case .accepted(let acceptance) = result else {
            Issue.record("the gateway did not accept the push: \(result)")
            throw CancellationError()
        }
        return acceptance.apnsID.lowercased()
    }
}
