import APNSCore
import ActivityKit
import Courier
import Foundation
import HeraldKit
import Synchronization

extension SimulatedDevice {
    /// Attaches each app's Live Activities to the device (tokens and subscriptions over its courier connection),
    /// and from then on reports every activity token to the provider and every change as an
    /// ``DeviceEvent/Kind/activity`` event.
    func attachActivities() {
        for app in apps {
            guard let system = app.activities else { continue }
            system.attach(SimulatedActivityTransport(app: app) { [weak self] in self?.courier.withLock { $0 } })
            let (reported, released, alerted) = (ReportedTokens(), ReportedTokens(), ReportedTokens())
            let hub = self.hub
            _ = system.observeActivities { [weak self] snapshot in
                hub.emit(Self.event(snapshot, app: app))
                if let alert = snapshot.alert,
                    alerted.insert(Data("\(snapshot.id) \(alert.shownAt.timeIntervalSince1970)".utf8))
                {
                    hub.emit(Self.alertEvent(alert, of: snapshot, app: app))
                }
                if let problem = snapshot.problem, alerted.insert(Data("\(snapshot.id) problem".utf8)) {
                    hub.emit(
                        DeviceEvent(
                            .log, bundleID: app.manifest.bundleID, notificationID: snapshot.id,
                            message: "activity \(snapshot.id) gets no pushes: \(problem)"))
                }
                guard let self, let token = snapshot.pushToken else { return }
                if snapshot.state == .ended || snapshot.state == .dismissed {
                    // An ended activity's token is invalid, as on iOS: APNs answers 410 for it, the provider forgets
                    // it, and the connection's token slot is free again.
                    if released.insert(token) { Task { await self.releaseActivityToken(token, of: app) } }
                } else if reported.insert(token) {
                    Task {
                        await self.postActivityToken(
                            token, kind: .update, type: snapshot.attributesType, activityID: snapshot.id, app: app)
                    }
                }
            }
        }
    }

    /// Asks for each app's push-to-start token of every declared type, and reports it to the provider.
    func requestPushToStartTokens() async {
        for app in apps {
            guard let system = app.activities else { continue }
            for type in app.manifest.activityTypes {
                guard let token = await system.pushToStartToken(forType: type.name) else {
                    hub.emit(
                        DeviceEvent(
                            .log, bundleID: app.manifest.bundleID,
                            message: "no push-to-start token for \(type.name): the gateway issued none"))
                    continue
                }
                hub.emit(
                    DeviceEvent(
                        .activity, bundleID: app.manifest.bundleID, token: token.hexString,
                        message: "push-to-start token for \(type.name)"))
                await postActivityToken(token, kind: .pushToStart, type: type.name, activityID: nil, app: app)
            }
        }
    }

    /// Hands a `liveactivity` push or a broadcast to the app whose activities it is for.
    ///
    /// - Returns: whether an app's activities took it (the caller acknowledges it either way).
    func receiveActivityEvent(_ event: CourierClient.Event) -> Bool {
        switch event {
        case .notification(let notification) where notification.pushType == .liveactivity:
            guard let app = apps.first(where: { $0.ownsExtraToken(notification.token) }),
                let system = app.activities
            else {
                hub.emit(
                    DeviceEvent(
                        .log, token: notification.token.hex, apnsID: notification.apnsID.uuidString.lowercased(),
                        message: "a liveactivity push for a token no activity of any app has: ignored"))
                return false
            }
            let outcome = system.receivePush(
                Data(notification.payload), token: notification.token.bytes,
                priority: Int(notification.priority.rawValue))
            let changed = outcome == .applied
            let apnsID = notification.apnsID.uuidString.lowercased()
            if outcome == .throttled {
                hub.emit(
                    DeviceEvent(
                        .outcome, bundleID: app.manifest.bundleID, token: notification.token.hex, apnsID: apnsID,
                        message: "past the activity's budget of priority-10 pushes this hour",
                        outcome: "activityThrottled"))
                return true
            }
            if !changed {
                hub.emit(
                    DeviceEvent(
                        .log, bundleID: app.manifest.bundleID, apnsID: apnsID,
                        message: "a liveactivity push changed nothing (an older timestamp, an ended activity, or a "
                            + "state that is not the type's)"))
            }
            // The provider learns what the activity did with it (its verdict).
            hub.emit(
                DeviceEvent(
                    .outcome, bundleID: app.manifest.bundleID, token: notification.token.hex, apnsID: apnsID,
                    message: changed
                        ? nil
                        : "an older or equal timestamp, an ended activity, or a content-state not of its type",
                    outcome: changed ? "activityUpdated" : "activityIgnored"))
            return true
        case .broadcast(let broadcast, let token):
            // An app without Live Activities (a fleet's, subscribed with --subscribe) only logs and acknowledges it.
            guard let app = app(for: token), let system = app.activities else { return false }
            if !system.receiveBroadcast(Data(broadcast.payload), channel: broadcast.channelID.rawValue) {
                hub.emit(
                    DeviceEvent(
                        .log, bundleID: app.manifest.bundleID,
                        message: "broadcast \(broadcast.uniqueID) on channel \(broadcast.channelID) changed nothing"))
            }
            return true
        default:
            return false
        }
    }

    /// Unregisters an ended activity's token at the gateway.
    private func releaseActivityToken(_ bytes: Data, of app: InstalledApp) async {
        guard let token = try? APNSDeviceToken(bytes: bytes) else { return }
        app.forgetActivityToken(token)
        guard let client = courier.withLock({ $0 }) else { return }
        do {
            try await client.unregister(token)
        } catch {
            hub.emit(
                DeviceEvent(
                    .log, bundleID: app.manifest.bundleID,
                    message: "the ended activity's token \(token.hex.prefix(8))… was not unregistered: \(error)"))
        }
    }

    /// Registers an activity token with the provider through the app's HeraldKit (`POST /v1/activities/tokens`),
    /// as an iOS app's `pushTokenUpdates` loop does; a failure is named in the device's log.
    private func postActivityToken(
        _ token: Data, kind: ActivityTokenKind, type: String, activityID: String?, app: InstalledApp
    ) async {
        guard let herald = app.herald else { return }
        do throws(HeraldError) {
            try await herald.registerActivityToken(token, kind: kind, attributesType: type, activityID: activityID)
        } catch {
            hub.emit(DeviceEvent(.log, bundleID: app.manifest.bundleID, message: "activity token not posted: \(error)"))
        }
    }

    /// The alert an activity showed, as the person sees it: title, body and sound.
    private static func alertEvent(_ alert: ActivityAlert, of snapshot: ActivitySnapshot, app: InstalledApp)
        -> DeviceEvent
    {
        let sound = alert.sound.map { $0.isEmpty ? "no sound" : "sound \($0)" } ?? "the default sound"
        let text = [alert.title, alert.body].filter { !$0.isEmpty }.joined(separator: " — ")
        return DeviceEvent(
            .activity, bundleID: app.manifest.bundleID, notificationID: snapshot.id,
            message: "\(snapshot.attributesType) alert: \(text) (\(sound))")
    }

    private static func event(_ snapshot: ActivitySnapshot, app: InstalledApp) -> DeviceEvent {
        let state = String(decoding: snapshot.contentState, as: UTF8.self)
        return DeviceEvent(
            .activity, bundleID: app.manifest.bundleID, token: snapshot.pushToken?.hexString,
            notificationID: snapshot.id, message: "\(snapshot.attributesType) \(snapshot.state.rawValue): \(state)")
    }
}

/// Keys already handled once: activity tokens posted to the provider, alerts and problems shown.
private final class ReportedTokens: Sendable {
    private let tokens = Mutex<Set<Data>>([])

    /// - Returns: whether `token` is new.
    func insert(_ token: Data) -> Bool {
        tokens.withLock { $0.insert(token).inserted }
    }
}

extension Data {
    /// The bytes as lowercase hex, as device tokens are written.
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
