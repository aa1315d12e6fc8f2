import APNSCore
import ActivityKit
import Courier
import Crypto
import Foundation
package import HeraldSupport
import Synchronization
package import UserNotifications

/// A simulated iPhone: it connects to a gateway's courier, installs apps from their manifests, gets a device token
/// per app (kept under its data folder across restarts), and runs every push through the UserNotifications pipeline:
/// a request with a push trigger, the service extension when `mutable-content` is 1 and there is alert text,
/// attachments into the app's store, the delegate's presentation choice, the badge, collapse IDs replacing a
/// delivered notification, duplicate `apns-id`s dropped. A person or a script acts on what it shows through
/// ``respond(to:action:text:)`` (the terminal and the JSON API call it).
///
/// ```swift
/// let device = try await SimulatedDevice.start(configuration)
/// for await event in device.events() where event.kind == .delivered { print(event.apnsID ?? "") }
/// ```
package final class SimulatedDevice: Sendable {
    /// How the device was started.
    package let configuration: Configuration
    let apps: [InstalledApp]
    let hub: EventHub
    let records = Mutex(DeliveryRecords())
    /// The courier connection now; a new one after a reconnection.
    let courier = Mutex<CourierClient?>(nil)
    let tasks = Mutex<[Task<Void, Never>]>([])
    let stopped = Atomic<Bool>(false)
    let stateFile: DeviceStateFile
    /// Wakes the loop that delivers due local notifications when one is scheduled.
    let scheduled = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    private init(configuration: Configuration, apps: [InstalledApp], stateFile: DeviceStateFile, hub: EventHub) {
        self.configuration = configuration
        self.apps = apps
        self.stateFile = stateFile
        self.hub = hub
        for app in apps { app.center.observeChanges { [changes = hub.changes] in changes.notify() } }
        attachActivities()
    }

    /// Installs the apps, connects to the gateway and registers every app (``install(_:)`` then ``connect()``).
    ///
    /// - Throws: ``DeviceError`` when two manifests name the same app, the data folder cannot be used, or the gateway
    ///   cannot be reached or refuses a registration.
    package static func start(_ configuration: Configuration) async throws(DeviceError) -> SimulatedDevice {
        let device = try await install(configuration)
        try await device.connect()
        return device
    }

    /// Installs the apps (with the tokens and keys saved under the data folder) without connecting, so that
    /// ``events()`` can be subscribed to before anything arrives.
    ///
    /// - Throws: ``DeviceError`` when two manifests name the same app or the data folder cannot be read.
    package static func install(_ configuration: Configuration) async throws(DeviceError) -> SimulatedDevice {
        let stateFile = DeviceStateFile(directory: configuration.dataDirectory)
        let saved = try stateFile.load()
        let hub = EventHub(logger: configuration.logger)
        var apps: [InstalledApp] = []
        for manifest in configuration.apps {
            if apps.contains(where: { $0.manifest.bundleID == manifest.bundleID }) {
                throw DeviceError("two manifests install \(manifest.bundleID); each app is installed once")
            }
            let record = saved.first {
                $0.bundleID == manifest.bundleID && $0.environment == manifest.environment.rawValue
            }
            let key =
                record.flatMap { Data(base64Encoded: $0.privateKey) }
                .flatMap { try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) }
                ?? Curve25519.KeyAgreement.PrivateKey()
            apps.append(
                await InstalledApp(
                    manifest: manifest, dataDirectory: configuration.dataDirectory, privateKey: key,
                    savedToken: record.flatMap { try? APNSDeviceToken(hex: $0.token) }, savedSecret: record?.secret,
                    contentExtension: configuration.contentExtensions[manifest.bundleID]?(),
                    herald: try Self.herald(for: manifest, configuration: configuration, key: key, hub: hub)))
        }
        return SimulatedDevice(configuration: configuration, apps: apps, stateFile: stateFile, hub: hub)
    }

    /// Connects to the gateway, registers every app and starts receiving; what the gateway stored for a token
    /// arrives right after its registration.
    ///
    /// - Throws: ``DeviceError`` when the gateway cannot be reached or refuses a registration.
    package func connect() async throws(DeviceError) {
        let courier = try await connectAndRegister()
        startTasks(firstCourier: courier)
    }

    /// Every event from now on, in order, until the device stops.
    package func events() -> AsyncStream<DeviceEvent> { hub.subscribe() }

    /// Counts the changes of what the device shows: every event, and every change of an app's pending or delivered
    /// notifications or badge.
    package var screenChanges: WorkSignal { hub.changes }

    /// The installed apps with their tokens and end-to-end public keys.
    package var installedApps: [InstalledAppSummary] {
        apps.map {
            InstalledAppSummary(
                bundleID: $0.manifest.bundleID, environment: $0.manifest.environment.rawValue,
                token: $0.token?.hex, publicKey: $0.publicKeyBase64, badge: $0.center.badgeCount,
                activityTypes: $0.manifest.activityTypes.map(\.name))
        }
    }

    /// Disconnects and stops every task; the device can be started again from the same data folder.
    package func stop() async {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let running = tasks.withLock { $0 }
        for task in running { task.cancel() }
        scheduled.continuation.finish()
        await courier.withLock { $0 }?.close()
        for task in running { await task.value }
        hub.finish()
    }

    /// An installed app's notification center: what its host (the device API, a test) changes as the person would.
    package func notificationCenter(of bundleID: String) -> UNUserNotificationCenter? {
        app(named: bundleID)?.center
    }

    func app(named bundleID: String) -> InstalledApp? {
        apps.first { $0.manifest.bundleID == bundleID }
    }

    func app(for token: APNSDeviceToken) -> InstalledApp? {
        apps.first { $0.token == token }
    }
}
