package import APNSCore
import Courier
import Foundation
package import HeraldSupport
package import HeraldTime
import NIOCore
import Synchronization

/// The broadcast channels: the channels each app made, which device activities subscribe to each,
/// the most recent broadcast a storing channel keeps, and which apps have broadcast switched off.
///
/// Channels survive a restart (the gateway's journal writes every change, ``changed``); subscriptions belong to a
/// courier connection and end with it.
package final class ChannelRegistry: Sendable {
    /// What changed, for persistence.
    package enum Change: Sendable, Hashable {
        /// A channel was made, deleted, or its stored message changed.
        case channel(APNSChannelID)
        /// An app's broadcast switch changed.
        case app(BroadcastApp)
    }

    /// Why a channel could not be made or used.
    package enum Refusal: Error, Sendable, Equatable {
        /// The app already has ``limitPerApp`` channels in that environment.
        case limitReached(BroadcastApp, Int)
        /// No such channel for this app and environment (never made, deleted, or another app's).
        case notRegistered(APNSChannelID)
    }

    /// The most channels an app may have in one environment.
    package let limitPerApp: Int
    /// How many broadcast reports are kept for the admin API, newest first out.
    static let reportLimit = 256

    struct Subscriber {
        let link: any BroadcastLink
        let token: APNSDeviceToken
    }

    struct SubscriberKey: Hashable {
        let link: ObjectIdentifier
        let token: APNSDeviceToken
    }

    struct State {
        var channels: [APNSChannelID: BroadcastChannel] = [:]
        var counts: [BroadcastApp: Int] = [:]
        var disabled: Set<BroadcastApp> = []
        var subscribers: [APNSChannelID: [SubscriberKey: Subscriber]] = [:]
        var reports: [UUID: BroadcastReport] = [:]
        /// Devices a report's broadcast was written to and that have not acknowledged it yet.
        var unacknowledged: [UUID: Set<SubscriberKey>] = [:]
        var reportOrder: [UUID] = []
    }

    let state: Mutex<State>
    let log: DeliveryLog
    /// The time of day the gateway goes by.
    let clock: any WallClock
    let changed: @Sendable (Change) -> Void

    /// - Parameters:
    ///   - channels: the channels to start with (read from the journal).
    ///   - disabled: the apps whose broadcast is switched off.
    ///   - limitPerApp: the most channels per app and environment; 10,000 as at Apple.
    ///   - log: where broadcasts are recorded.
    ///   - clock: the time of day the gateway goes by (tests move it).
    ///   - changed: called (outside any lock) after every change, for persistence.
    package init(
        channels: [BroadcastChannel] = [], disabled: Set<BroadcastApp> = [], limitPerApp: Int = 10_000,
        log: DeliveryLog = DeliveryLog(), clock: any WallClock = SystemWallClock(),
        changed: @escaping @Sendable (Change) -> Void = { _ in }
    ) {
        var state = State()
        for channel in channels {
            state.channels[channel.id] = channel
            state.counts[BroadcastApp(bundleID: channel.bundleID, environment: channel.environment), default: 0] += 1
        }
        state.disabled = disabled
        self.state = Mutex(state)
        self.limitPerApp = limitPerApp
        self.log = log
        self.clock = clock
        self.changed = changed
    }

    // MARK: Channels

    /// Makes a channel with a new random ID.
    ///
    /// - Throws: ``Refusal/limitReached(_:_:)`` when the app has ``limitPerApp`` channels in that environment.
    package func create(
        for app: BroadcastApp, storagePolicy: APNSChannelStoragePolicy
    ) throws(Refusal) -> BroadcastChannel {
        let channel = BroadcastChannel(
            id: .random(), bundleID: app.bundleID, environment: app.environment, storagePolicy: storagePolicy,
            createdAt: now())
        let outcome = state.withLock { state -> Refusal? in
            let count = state.counts[app, default: 0]
            guard count < limitPerApp else { return .limitReached(app, count) }
            state.channels[channel.id] = channel
            state.counts[app] = count + 1
            return nil
        }
        if let outcome { throw outcome }
        changed(.channel(channel.id))
        return channel
    }

    /// The channel with this ID when it belongs to `app`.
    ///
    /// - Throws: ``Refusal/notRegistered(_:)`` otherwise.
    package func channel(_ id: APNSChannelID, of app: BroadcastApp) throws(Refusal) -> BroadcastChannel {
        let channel = state.withLock { $0.channels[id] }
        guard let channel, channel.belongs(to: app.bundleID, in: app.environment) else { throw .notRegistered(id) }
        return channel
    }

    /// The channel with this ID, whoever it belongs to (persistence and the admin API).
    package func channel(_ id: APNSChannelID) -> BroadcastChannel? {
        state.withLock { $0.channels[id] }
    }

    /// Deletes a channel of `app`: it cannot be used again and its subscriptions end; its ID is never made again.
    ///
    /// - Throws: ``Refusal/notRegistered(_:)`` when `app` has no such channel.
    package func delete(_ id: APNSChannelID, of app: BroadcastApp) throws(Refusal) {
        let found = state.withLock { state -> Bool in
            guard let channel = state.channels[id], channel.belongs(to: app.bundleID, in: app.environment) else {
                return false
            }
            state.channels[id] = nil
            state.counts[app, default: 1] -= 1
            state.subscribers[id] = nil
            return true
        }
        guard found else { throw .notRegistered(id) }
        changed(.channel(id))
    }

    /// The IDs of `app`'s channels, oldest first.
    package func channels(of app: BroadcastApp) -> [BroadcastChannel] {
        state.withLock { state in
            state.channels.values.filter { $0.belongs(to: app.bundleID, in: app.environment) }
        }.sorted { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
    }

    /// Every channel (persistence).
    package var all: [BroadcastChannel] { state.withLock { Array($0.channels.values) } }

    // MARK: The broadcast switch

    /// Switches broadcast on or off for an app (off: broadcasts and channel requests get `FeatureNotEnabled`).
    package func setBroadcastEnabled(_ enabled: Bool, for app: BroadcastApp) {
        let didChange = state.withLock { state in
            enabled ? state.disabled.remove(app) != nil : state.disabled.insert(app).inserted
        }
        if didChange { changed(.app(app)) }
    }

    /// Whether broadcast is on for an app (it is unless switched off).
    package func isBroadcastEnabled(for app: BroadcastApp) -> Bool {
        state.withLock { !$0.disabled.contains(app) }
    }

    /// The apps whose broadcast is off (persistence).
    package var disabledApps: Set<BroadcastApp> { state.withLock { $0.disabled } }

    // MARK: Subscriptions

    /// Subscribes a device's app (its token, on its courier link) to a channel of that app.
    ///
    /// - Returns: the courier message of the channel's stored broadcast when there is one still in time, for the
    ///   caller to write once it has answered the subscription (it counts as given to this device).
    /// - Throws: ``Refusal/notRegistered(_:)`` when `app` has no such channel.
    package func subscribe(
        _ link: any BroadcastLink, token: APNSDeviceToken, app: BroadcastApp, to id: APNSChannelID
    ) throws(Refusal) -> [UInt8]? {
        let time = now()
        let key = SubscriberKey(link: ObjectIdentifier(link), token: token)
        let outcome = state.withLock { state -> Result<ChannelBroadcast?, Refusal> in
            guard let channel = state.channels[id], channel.belongs(to: app.bundleID, in: app.environment) else {
                return .failure(.notRegistered(id))
            }
            state.subscribers[id, default: [:]][key] = Subscriber(link: link, token: token)
            guard let stored = channel.storedMessage, stored.deadline >= time else { return .success(nil) }
            // A stored message from before a restart has no report any more: it is delivered all the same.
            if state.reports[stored.uniqueID] != nil {
                state.reports[stored.uniqueID]?.reached += 1
                state.unacknowledged[stored.uniqueID, default: []].insert(key)
            }
            return .success(stored)
        }
        let message = try outcome.get().map { Self.message($0, token: token) }
        changes.notify()
        return message
    }

    /// Ends a subscription.
    package func unsubscribe(_ link: any BroadcastLink, token: APNSDeviceToken, from id: APNSChannelID) {
        let key = SubscriberKey(link: ObjectIdentifier(link), token: token)
        state.withLock { state in
            state.subscribers[id]?.removeValue(forKey: key)
            if state.subscribers[id]?.isEmpty == true { state.subscribers[id] = nil }
        }
        changes.notify()
    }

    /// Notified when a subscription begins or ends and when a device acknowledges a broadcast: what a test (or a
    /// view) that follows subscriptions and acknowledgements waits on.
    package let changes = WorkSignal()

    /// How many device apps are subscribed to a channel now.
    package func subscriberCount(_ id: APNSChannelID) -> Int {
        state.withLock { $0.subscribers[id]?.count ?? 0 }
    }
}

extension ChannelRegistry {
    /// The time now, on the gateway's clock.
    func now() -> Date { clock.currentDate }
}
