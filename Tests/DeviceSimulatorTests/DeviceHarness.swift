import APNSClient
import APNSCore
import APNSGateway
import DeviceSimulator
import Foundation
import GatewayTestSupport
import NIOCore
import Synchronization
import Testing

/// A live gateway, a provider's APNSPushClient to it, and simulated devices connected to its courier.
struct DeviceHarness {
    let gateway: TestGateway
    let client: APNSPushClient

    /// The repository's `examples/` folder.
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")

    /// Runs `body` against a fresh gateway, then stops the client and the gateway.
    static func with(_ body: (DeviceHarness) async throws -> Void) async throws {
        let gateway = try await TestGateway.start()
        let client = try APNSPushClient(
            configuration: APNSPushClient.Configuration(
                endpoint: try APNSEndpoint(
                    url: "https://127.0.0.1:\(gateway.port)",
                    additionalTrustRootsPEM: gateway.server.certificateAuthority.caCertificatePEM),
                authentication: .token(gateway.signer)))
        try await gateway.run {
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
        var configuration = SimulatedDevice.Configuration(
            gatewayHost: "127.0.0.1", gatewayPort: gateway.port,
            caPEM: gateway.server.certificateAuthority.caCertificatePEM, apps: manifests, dataDirectory: data)
        // The tests' media servers listen on loopback, which downloads may reach only when allowed.
        configuration.allowedAttachmentHosts = ["127.0.0.1"]
        return configuration
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

/// Collects a device's events and hands each to the first wait that wants it; a wait fails after its time.
final class EventLog: Sendable {
    private struct Waiter {
        let id: UUID
        let matches: @Sendable (DeviceEvent) -> Bool
        let continuation: CheckedContinuation<DeviceEvent, any Error>
    }

    private struct State {
        var unclaimed: [DeviceEvent] = []
        var waiters: [Waiter] = []
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let reader: Task<Void, Never>

    init(_ device: SimulatedDevice) {
        let events = device.events()
        let shared = self.shared
        reader = Task { [shared] in
            for await event in events {
                let waiter = shared.state.withLock { state -> Waiter? in
                    if let index = state.waiters.firstIndex(where: { $0.matches(event) }) {
                        return state.waiters.remove(at: index)
                    }
                    state.unclaimed.append(event)
                    return nil
                }
                waiter?.continuation.resume(returning: event)
            }
        }
    }

    deinit { reader.cancel() }

    /// The next event of `kind` matching `predicate` (received before or after the call); throws after `seconds`.
    func next(
        _ kind: DeviceEvent.Kind, seconds: Double = 20,
        where predicate: @escaping @Sendable (DeviceEvent) -> Bool = { _ in true }
    ) async throws -> DeviceEvent {
        let id = UUID()
        let matches: @Sendable (DeviceEvent) -> Bool = { $0.kind == kind && predicate($0) }
        let shared = self.shared
        let timeout = Task { [shared] in
            try? await Task.sleep(for: .seconds(seconds))
            let waiter = shared.state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: EventTimeout(kind: kind))
        }
        defer { timeout.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = shared.state.withLock { state -> DeviceEvent? in
                if let index = state.unclaimed.firstIndex(where: matches) { return state.unclaimed.remove(at: index) }
                state.waiters.append(Waiter(id: id, matches: matches, continuation: continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// No matching event came in time.
struct EventTimeout: Error, CustomStringConvertible {
    let kind: DeviceEvent.Kind
    var description: String { "no \(kind.rawValue) event came in time" }
}
