import APNSCore
import ActivityKit
import Courier
import Crypto
import Foundation
import Synchronization
public import UserNotifications

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
public final class SimulatedDevice: Sendable {
    /// How the device was started.
    public let configuration: Configuration
    let apps: [InstalledApp]
    let hub: EventHub
    let records = Mutex(DeliveryRecords())
    /// The courier connection now; a new one after a reconnection.
    let courier = Mutex<CourierClient?>(nil)
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let stopped = Atomic<Bool>(false)
    private let stateFile: DeviceStateFile
    /// Wakes the loop that delivers due local notifications when one is scheduled.
    private let scheduled = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    private init(configuration: Configuration, apps: [InstalledApp], stateFile: DeviceStateFile) {
        self.configuration = configuration
        self.apps = apps
        self.stateFile = stateFile
        hub = EventHub(logger: configuration.logger)
        attachActivities()
    }

    /// Installs the apps, connects to the gateway and registers every app (``install(_:)`` then ``connect()``).
    ///
    /// - Throws: ``DeviceError`` when two manifests name the same app, the data folder cannot be used, or the gateway
    ///   cannot be reached or refuses a registration.
    public static func start(_ configuration: Configuration) async throws(DeviceError) -> SimulatedDevice {
        let device = try await install(configuration)
        try await device.connect()
        return device
    }

    /// Installs the apps (with the tokens and keys saved under the data folder) without connecting, so that
    /// ``events()`` can be subscribed to before anything arrives.
    ///
    /// - Throws: ``DeviceError`` when two manifests name the same app or the data folder cannot be read.
    public static func install(_ configuration: Configuration) async throws(DeviceError) -> SimulatedDevice {
        let stateFile = DeviceStateFile(directory: configuration.dataDirectory)
        let saved = try stateFile.load()
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
                    contentExtension: configuration.contentExtensions[manifest.bundleID]?()))
        }
        return SimulatedDevice(configuration: configuration, apps: apps, stateFile: stateFile)
    }

    /// Connects to the gateway, registers every app and starts receiving; what the gateway stored for a token
    /// arrives right after its registration.
    ///
    /// - Throws: ``DeviceError`` when the gateway cannot be reached or refuses a registration.
    public func connect() async throws(DeviceError) {
        let courier = try await connectAndRegister()
        startTasks(firstCourier: courier)
    }

    /// Every event from now on, in order, until the device stops.
    public func events() -> AsyncStream<DeviceEvent> { hub.subscribe() }

    /// The installed apps with their tokens and end-to-end public keys.
    public var installedApps: [InstalledAppSummary] {
        apps.map {
            InstalledAppSummary(
                bundleID: $0.manifest.bundleID, environment: $0.manifest.environment.rawValue,
                token: $0.token?.hex, publicKey: $0.publicKeyBase64, badge: $0.center.badgeCount,
                activityTypes: $0.manifest.activityTypes.map(\.name))
        }
    }

    /// Disconnects and stops every task; the device can be started again from the same data folder.
    public func stop() async {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let running = tasks.withLock { $0 }
        for task in running { task.cancel() }
        scheduled.continuation.finish()
        await courier.withLock { $0 }?.close()
        for task in running { await task.value }
        hub.finish()
    }

    // MARK: - The courier

    /// Subscribes an app's token to the configured broadcast channels.
    private func subscribe(_ app: InstalledApp, on client: CourierClient) async throws(DeviceError) {
        guard let token = app.token else { return }
        for text in configuration.channelSubscriptions {
            guard let channel = APNSChannelID(rawValue: text) else {
                throw DeviceError("--subscribe: \(APNSChannelID.problem(with: text) ?? "not a channel ID")")
            }
            do {
                try await client.subscribe(token, to: channel)
            } catch {
                await client.close()
                throw DeviceError("the gateway refused to subscribe \(app.manifest.bundleID) to \(text): \(error)")
            }
        }
    }

    private func connectAndRegister() async throws(DeviceError) -> CourierClient {
        let client: CourierClient
        do {
            client = try await CourierClient.connect(
                host: configuration.gatewayHost, port: configuration.gatewayPort, caPEM: configuration.caPEM)
        } catch {
            let text = String(describing: error)
            let cause =
                text.contains("Connection refused") || text.contains("errno: 111")
                ? "nothing is listening there"
                : text.contains("SSL") || text.contains("certificate") || text.contains("handshake")
                    ? "the TLS handshake failed: the CA given is not the gateway's ca.pem (--ca-file)" : text
            throw DeviceError(
                "cannot reach the gateway's courier at \(configuration.gatewayHost):\(configuration.gatewayPort): "
                    + cause)
        }
        courier.withLock { $0 = client }
        for app in apps {
            do {
                app.registered(
                    try await client.register(
                        bundleID: app.manifest.bundleID, environment: app.manifest.environment, token: app.token,
                        secret: app.secret))
            } catch {
                await client.close()
                throw DeviceError("the gateway refused to register \(app.manifest.bundleID): \(error)")
            }
            hub.emit(DeviceEvent(.registered, bundleID: app.manifest.bundleID, token: app.token?.hex))
            try await subscribe(app, on: client)
            await restoreActivities(of: app, on: client)
        }
        try stateFile.save(
            apps.map {
                DeviceStateFile.App(
                    bundleID: $0.manifest.bundleID, environment: $0.manifest.environment.rawValue,
                    token: $0.token?.hex ?? "", secret: $0.secret,
                    privateKey: $0.privateKey.rawRepresentation.base64EncodedString())
            })
        return client
    }

    /// On a new connection: the app's activity tokens registered again, its activities' channels subscribed again.
    private func restoreActivities(of app: InstalledApp, on client: CourierClient) async {
        for (token, secret) in app.extraTokenRegistrations {
            if let registration = try? await client.register(
                bundleID: app.manifest.bundleID, environment: app.manifest.environment, token: token, secret: secret)
            {
                app.issuedExtraToken(registration)
            }
        }
        guard let system = app.activities, let token = app.token else { return }
        let channels = Set(system.snapshots.filter { $0.state == .active || $0.state == .stale }.compactMap(\.channel))
        for channel in channels.compactMap(APNSChannelID.init(rawValue:)) {
            try? await client.subscribe(token, to: channel)
        }
    }

    private func startTasks(firstCourier: CourierClient) {
        let reports = configuration.reportURL.map { url in
            let events = hub.subscribe()
            return Task { await Self.report(events, to: JSONPoster(url: url), hub: hub) }
        }
        let registrations = configuration.registerURL.map { _ in Task { await postRegistrations(of: apps) } }
        let receiving = Task { await receiveLoop(firstCourier) }
        let scheduling = Task { await deliverDueLoop() }
        let activities = Task {
            await requestPushToStartTokens()
            await requestWidgetTokens()
        }
        tasks.withLock { $0 = [receiving, scheduling, activities] + [reports, registrations].compactMap { $0 } }
    }

    /// Reads the courier's notifications in order; reconnects (every second) when the connection drops.
    private func receiveLoop(_ first: CourierClient) async {
        var client: CourierClient? = first
        while !stopped.load(ordering: .relaxed) {
            if let client {
                for await event in client.events {
                    if case .notification(let notification) = event, receiveWidgetPush(notification) {
                        client.acknowledge(notification)
                        continue
                    }
                    if receiveActivityEvent(event) {
                        if case .notification(let notification) = event { client.acknowledge(notification) }
                        if case .broadcast(let broadcast, let token) = event {
                            client.acknowledge(broadcast, token: token)
                        }
                        continue
                    }
                    switch event {
                    case .notification(let notification):
                        await receive(notification)
                        client.acknowledge(notification)
                    case .broadcast(let broadcast, let token):
                        hub.emit(
                            DeviceEvent(
                                .log, message: "broadcast \(broadcast.uniqueID) on channel \(broadcast.channelID)"))
                        client.acknowledge(broadcast, token: token)
                    case .error(let message):
                        hub.emit(DeviceEvent(.log, message: "the gateway says: \(message)"))
                    case .closed:
                        break
                    }
                }
            }
            if stopped.load(ordering: .relaxed) { return }
            hub.emit(DeviceEvent(.log, message: "the courier connection closed; reconnecting"))
            try? await Task.sleep(for: .seconds(1))
            client = try? await connectAndRegister()
            if client != nil, configuration.registerURL != nil {
                await postRegistrations(of: apps.filter { $0.replacedToken != nil })
            }
        }
    }

    /// Registers each app's token with its provider; a token the gateway replaced names the old one
    /// (`replaces`), so the provider retires it instead of keeping a ghost.
    private func postRegistrations(of apps: [InstalledApp]) async {
        guard let url = configuration.registerURL else { return }
        let poster = JSONPoster(url: url)
        for app in apps {
            let replaced = app.replacedToken
            let fields: [(key: String, value: String?)] = [
                ("token", app.token?.hex), ("bundleID", app.manifest.bundleID),
                ("environment", app.manifest.environment.rawValue), ("publicKey", app.publicKeyBase64),
                ("userID", configuration.user?.id), ("userToken", configuration.user?.token),
                ("replaces", replaced?.hex),
            ]
            let body = JSONValue.object(
                JSONObject(fields.compactMap { field in field.value.map { (field.key, .string($0)) } }))
            do {
                let answer = try await poster.post(body.encoded())
                guard answer == .accepted else {
                    throw DeviceError("\(url) answered 404: the register URL is the provider's /v1/devices")
                }
                if let replaced { app.replacementReported(replaced) }
            } catch {
                hub.emit(
                    DeviceEvent(.log, bundleID: app.manifest.bundleID, message: "registration not posted: \(error)"))
            }
        }
    }

    /// Reports each delivery, display, outcome and response of a push to the provider. A push the provider answers 404 for
    /// did not come through it (sent straight to APNs): nothing more of it is reported, and nothing is logged.
    private static func report(_ events: AsyncStream<DeviceEvent>, to poster: JSONPoster, hub: EventHub) async {
        var notFromProvider: Set<String> = []
        for await event in events where [.delivered, .displayed, .response, .outcome].contains(event.kind) {
            guard let apnsID = event.apnsID, !notFromProvider.contains(apnsID) else { continue }
            do throws(DeviceError) {
                if try await poster.post(event.reportJSON) == .unknown {
                    if notFromProvider.count >= 10_000 { notFromProvider.removeAll() }
                    notFromProvider.insert(apnsID)
                }
            } catch {
                hub.emit(DeviceEvent(.log, bundleID: event.bundleID, message: "report not posted: \(error.message)"))
            }
        }
    }

    /// Tells the loop that delivers due local notifications that one was scheduled.
    func wakeForScheduledNotifications() {
        scheduled.continuation.yield()
    }

    private func deliverDueLoop() async {
        var wakeups = scheduled.stream.makeAsyncIterator()
        while !stopped.load(ordering: .relaxed) {
            if apps.allSatisfy({ $0.center.pendingNotificationRequestsWithFireDates().isEmpty }) {
                // Nothing scheduled: wait until something is. Polling instead woke each device of a 10,000-device
                // fleet ten times a second, which was most of the fleet's CPU.
                guard await wakeups.next() != nil else { return }
                continue
            }
            for app in apps {
                for outcome in await app.center.deliverDueNotifications() { record(outcome, of: app, apnsID: nil) }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// An installed app's notification center: what its host (the device API, a test) changes as the person would.
    public func notificationCenter(of bundleID: String) -> UNUserNotificationCenter? {
        app(named: bundleID)?.center
    }

    func app(named bundleID: String) -> InstalledApp? {
        apps.first { $0.manifest.bundleID == bundleID }
    }

    func app(for token: APNSDeviceToken) -> InstalledApp? {
        apps.first { $0.token == token }
    }
}

/// An installed app as the device API shows it.
public struct InstalledAppSummary: Sendable, Hashable, Encodable {
    public let bundleID: String
    public let environment: String
    /// The device token in hex, once registered.
    public let token: String?
    /// The end-to-end public key (X25519, base64 of 32 bytes) a provider seals content to (docs/e2e.md).
    public let publicKey: String
    /// The number on the app's icon.
    public let badge: Int
    /// The Live Activity types its manifest declares (each with a push-to-start token once registered).
    public let activityTypes: [String]
}
