import APNSCore
import ActivityKit
import Courier
import Crypto
import Foundation
import Synchronization
import UserNotifications

/// The courier side: connecting and registering every app, subscribing activities' channels, the receive loop that
/// runs each push through the app, reports to the provider, and the loop that delivers due local notifications.
extension SimulatedDevice {
    /// Subscribes an app's token to the configured broadcast channels.
    func subscribe(_ app: InstalledApp, on client: CourierClient) async throws(DeviceError) {
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

    func connectAndRegister() async throws(DeviceError) -> CourierClient {
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
    func restoreActivities(of app: InstalledApp, on client: CourierClient) async {
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

    func startTasks(firstCourier: CourierClient) {
        let reports = configuration.reportURL.map { url in
            let events = hub.subscribe()
            if url.path.hasSuffix("/v1/feedback"), apps.contains(where: { $0.herald != nil }) {
                return Task { await reportThroughHeraldKit(events) }
            }
            return Task { await Self.report(events, to: JSONPoster(url: url), hub: hub) }
        }
        let registrations = configuration.registerURL.map { _ in Task { await postRegistrations(of: apps) } }
        let receiving = Task { await receiveLoop(firstCourier) }
        let scheduling = Task { await deliverDueLoop() }
        let activities = Task {
            // The tokens are registered with the user the registration names, as an app does once signed in.
            await registrations?.value
            await requestPushToStartTokens()
            await requestWidgetTokens()
        }
        tasks.withLock { $0 = [receiving, scheduling, activities] + [reports, registrations].compactMap { $0 } }
    }

    /// Reads the courier's notifications in order; reconnects (every second) when the connection drops.
    func receiveLoop(_ first: CourierClient) async {
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
    func postRegistrations(of apps: [InstalledApp]) async {
        guard let url = configuration.registerURL else { return }
        let poster = JSONPoster(url: url)
        for app in apps {
            if let herald = app.herald {
                await registerThroughHeraldKit(app, herald: herald)
                continue
            }
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
    static func report(_ events: AsyncStream<DeviceEvent>, to poster: JSONPoster, hub: EventHub) async {
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

    func deliverDueLoop() async {
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
}
