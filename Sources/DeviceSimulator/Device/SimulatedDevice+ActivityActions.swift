package import APNSCore
import ActivityKit
import Foundation

extension SimulatedDevice {
    /// Every Live Activity of every app, oldest first.
    package func activities() -> [ActivitySummary] {
        apps.flatMap { app in
            (app.activities?.snapshots ?? []).map { Self.summary($0, bundleID: app.manifest.bundleID) }
        }
    }

    /// The push-to-start tokens each app got, by bundle ID and attributes type (hex).
    package func pushToStartTokens() async -> [String: [String: String]] {
        var tokens: [String: [String: String]] = [:]
        for app in apps {
            guard let system = app.activities else { continue }
            for type in app.manifest.activityTypes {
                if let token = await system.pushToStartToken(forType: type.name) {
                    tokens[app.manifest.bundleID, default: [:]][type.name] = token.hexString
                }
            }
        }
        return tokens
    }

    /// Starts an activity as the app's code would (`Activity.request`): with a push token of its own, subscribed to a
    /// channel, or neither; the manifest's sample attributes and state stand in for those not given.
    ///
    /// - Throws: ``DeviceError`` naming what is wrong: no such app or type, JSON that is not an object, no
    ///   connection to issue a token or subscribe.
    package func startActivity(
        bundleID: String, type: String, attributes: JSONValue?, contentState: JSONValue?, channel: String?,
        pushToken: Bool, options: ActivityStartOptions = .init()
    ) async throws(DeviceError) -> ActivitySummary {
        guard let app = app(named: bundleID) else { throw DeviceError("no app \(bundleID) is installed") }
        guard let system = app.activities, let declared = app.manifest.activityTypes.first(where: { $0.name == type })
        else {
            let known = app.manifest.activityTypes.map(\.name).joined(separator: ", ")
            throw DeviceError(
                "\(bundleID) declares no activity type \(type) (its manifest's activityTypes: \(known.isEmpty ? "none" : known))"
            )
        }
        let attributesJSON = try Self.object(attributes ?? declared.attributes ?? .object(JSONObject()), "attributes")
        let stateJSON = try Self.object(contentState ?? declared.contentState ?? .object(JSONObject()), "contentState")
        if let channel, APNSChannelID(rawValue: channel) == nil {
            throw DeviceError("channel: \(APNSChannelID.problem(with: channel) ?? "not a channel ID")")
        }
        let pushType: PushType? = channel.map { .channel($0) } ?? (pushToken ? .token : nil)
        let id: String
        do {
            let (style, alert, start) = try options.checked(now: system.now)
            id = try await system.start(
                type: type, attributes: attributesJSON, contentState: stateJSON, pushType: pushType, style: style,
                alert: alert, start: start)
        } catch let error as DeviceError {
            throw error
        } catch {
            throw DeviceError("the activity could not start: \(error)")
        }
        return try summary(of: id)
    }

    /// Changes an active activity's content state, as the app does with `Activity.update`.
    ///
    /// - Throws: ``DeviceError`` when there is no such activity, it is not active, or the state is not an object.
    package func updateActivity(id: String, contentState: JSONValue, alert: ActivityAlertInput? = nil)
        throws(DeviceError) -> ActivitySummary
    {
        let (app, system) = try owner(of: id)
        let configuration = try alert.map { input throws(DeviceError) in try input.configuration() }
        guard system.update(id: id, contentState: try Self.object(contentState, "contentState"), alert: configuration)
        else {
            throw DeviceError("activity \(id) of \(app.manifest.bundleID) has ended: it takes no more updates")
        }
        return try summary(of: id)
    }

    /// Ends an active activity, as the app does with `Activity.end`: it stays on the lock screen up to four hours, or
    /// leaves it at once (`immediately`).
    ///
    /// - Throws: ``DeviceError`` when there is no such activity or it has ended already.
    package func endActivity(id: String, contentState: JSONValue?, immediately: Bool) throws(DeviceError)
        -> ActivitySummary
    {
        let (app, system) = try owner(of: id)
        let state = try contentState.map { value throws(DeviceError) in try Self.object(value, "contentState") }
        guard system.end(id: id, contentState: state, dismissalPolicy: immediately ? .immediate : .default) else {
            throw DeviceError("activity \(id) of \(app.manifest.bundleID) has ended already")
        }
        return try summary(of: id)
    }

    private func owner(of id: String) throws(DeviceError) -> (InstalledApp, ActivitySystem) {
        for app in apps {
            if let system = app.activities, system.snapshot(id: id) != nil { return (app, system) }
        }
        throw DeviceError("no app has an activity \(id); GET /activities lists them")
    }

    private func summary(of id: String) throws(DeviceError) -> ActivitySummary {
        let (app, system) = try owner(of: id)
        // Safety: owner(of:) found it in this system.
        return Self.summary(system.snapshot(id: id)!, bundleID: app.manifest.bundleID)
    }

    private static func object(_ value: JSONValue, _ field: String) throws(DeviceError) -> Data {
        guard case .object = value else { throw DeviceError("\(field) must be a JSON object") }
        return value.encoded()
    }

    static func summary(_ snapshot: ActivitySnapshot, bundleID: String) -> ActivitySummary {
        ActivitySummary(
            bundleID: bundleID, id: snapshot.id, attributesType: snapshot.attributesType,
            state: snapshot.state.rawValue, attributes: (try? JSONValue(parsing: snapshot.attributes)) ?? .null,
            contentState: (try? JSONValue(parsing: snapshot.contentState)) ?? .null,
            pushToken: snapshot.pushToken?.hexString, channel: snapshot.channel, staleDate: snapshot.staleDate,
            timestamp: snapshot.timestamp, startedAt: snapshot.startedAt, endedAt: snapshot.endedAt,
            dismissAt: snapshot.dismissAt, style: snapshot.style.rawValue, scheduledStart: snapshot.scheduledStart,
            alert: snapshot.alert.map {
                ActivitySummary.Alert(title: $0.title, body: $0.body, sound: $0.sound, shownAt: $0.shownAt)
            })
    }
}
