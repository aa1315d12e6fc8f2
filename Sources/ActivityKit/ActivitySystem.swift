public import Foundation
public import HeraldTime
import Synchronization

/// The device's side of ActivityKit: every activity of the app, their tokens and channel subscriptions, and what
/// pushes and broadcasts do to them. ``Activity`` reads and changes it; the device feeds it what APNs delivers
/// (``receivePush(_:token:)``, ``receiveBroadcast(_:channel:)``).
///
/// As on iOS: an activity is active for at most 8 hours, then ends; an ended activity stays on the lock screen
/// until its dismissal date, at most 4 hours; an update whose `timestamp` is not newer than the activity's is ignored.
public final class ActivitySystem: Sendable {
    /// The app's system.
    public static let shared = ActivitySystem()

    /// How long an activity may be active: 8 hours.
    public static let activeLimit: TimeInterval = 8 * 3600
    /// How long an ended activity may stay on the lock screen: 4 hours.
    public static let dismissalLimit: TimeInterval = 4 * 3600

    struct State {
        var records: [String: ActivityRecord] = [:]
        var order: [String] = []
        var transport: (any ActivityTransport)?
        var pushToStartTokens: [String: Data] = [:]
        var activitiesEnabled = true
        var frequentPushesEnabled = true
        /// Priority-10 pushes an activity takes per rolling hour; frequent updates multiply it.
        var priority10Budget = ActivitySystem.defaultPriority10Budget
        /// The app's Info.plist has `NSSupportsLiveActivitiesFrequentUpdates`.
        var supportsFrequentUpdates = false
        var observers: [UUID: @Sendable (ActivityRecord) -> Void] = [:]
        var starts: [UUID: (type: String, deliver: @Sendable (String) -> Void)] = [:]
        /// For each attributes type the app uses: whether JSON decodes as its content state, and as its attributes.
        var decoders: [String: TypeDecoders] = [:]
        var clock: any WallClock = SystemWallClock()
        /// Push tokens being issued and channels being subscribed, for ``settled()``.
        var registrations: [UUID: Task<Void, Never>] = [:]
    }

    /// Checks that JSON from a push decodes as an attributes type's state or attributes: a push that does not is
    /// ignored, as iOS ignores it, instead of reaching the app's code.
    struct TypeDecoders: Sendable {
        let contentState: @Sendable (Data) -> Bool
        let attributes: @Sendable (Data) -> Bool
    }

    let state = Mutex(State())

    public init() {}

    /// Connects the system to the device that issues tokens and holds subscriptions.
    public func attach(_ transport: any ActivityTransport) {
        state.withLock { $0.transport = transport }
    }

    /// Priority-10 pushes an activity takes in an hour unless told otherwise. Apple publishes no number ("a certain
    /// budget of ActivityKit push notifications per hour"); this is Herald's, the same as the provider's warning.
    public static let defaultPriority10Budget = 10

    /// How many more an activity takes when the app has `NSSupportsLiveActivitiesFrequentUpdates` and the person left
    /// frequent updates on (``ActivityAuthorizationInfo/frequentPushesEnabled``): Herald's factor, Apple's is not
    /// published either.
    public static let frequentUpdatesFactor = 6

    /// Sets the budget of priority-10 pushes per activity and hour (a manifest's `activityPriority10Budget`), and
    /// whether the app asks for frequent updates (`NSSupportsLiveActivitiesFrequentUpdates`).
    public func setPriority10Budget(_ budget: Int, frequentUpdates: Bool = false) {
        state.withLock { state in
            state.priority10Budget = max(0, budget)
            state.supportsFrequentUpdates = frequentUpdates
        }
    }

    /// Turns frequent updates on or off for the app, as the person can in Settings.
    public func setFrequentPushesEnabled(_ enabled: Bool) {
        state.withLock { $0.frequentPushesEnabled = enabled }
    }

    /// The clock (a test gives a `ManualClock` and moves it). The system's deadlines are checked against it on every
    /// read, and a scheduled activity's start is awaited on it, so observers hear of the start when the clock reaches
    /// it.
    public func setClock(_ clock: any WallClock) {
        state.withLock { $0.clock = clock }
    }

    /// Turns Live Activities on or off for the app, as the person can in Settings.
    public func setActivitiesEnabled(_ enabled: Bool) {
        state.withLock { $0.activitiesEnabled = enabled }
    }

    var activitiesEnabled: Bool { state.withLock { $0.activitiesEnabled } }
    var frequentPushesEnabled: Bool { state.withLock { $0.frequentPushesEnabled } }

    // MARK: For Activity

    /// Starts (or schedules, with `start` after now) an activity at once, as iOS's synchronous `request` does: its
    /// push token and channel subscription are had afterwards (``settled()`` waits for them), and the token comes
    /// through the activity's updates.
    func request(
        type: String, attributes: Data, contentState: Data, staleDate: Date?, relevanceScore: Double,
        pushType: PushType?, style: ActivityStyle = .standard, alert: AlertConfiguration? = nil, start: Date? = nil
    ) throws(ActivityAuthorizationError) -> String {
        guard activitiesEnabled else { throw .denied }
        let transport = state.withLock { $0.transport }
        if pushType != nil, transport == nil {
            throw .unsupported("no device is attached to issue a push token or subscribe to a channel")
        }
        let record = state.withLock { state in
            let now = state.clock.currentDate
            let scheduled = start.flatMap { $0 > now ? $0 : nil }
            var record = ActivityRecord(
                id: UUID().uuidString, attributesType: type, attributes: attributes, contentState: contentState,
                staleDate: staleDate, relevanceScore: relevanceScore, timestamp: nil,
                state: scheduled == nil ? .active : .pending, pushToken: nil, channel: pushType?.channelID,
                startedAt: scheduled ?? now)
            record.style = style
            record.scheduledStart = scheduled
            if scheduled != nil { record.startAlert = alert } else { record.alert = alert.map { .init($0, at: now) } }
            return record
        }
        insert(record)
        if let start = record.scheduledStart { wake(at: start) }
        if let transport, let pushType { register(record.id, pushType, with: transport) }
        return record.id
    }

    /// Waits until every push token and channel subscription asked for so far has been had (or has failed).
    public func settled() async {
        while let pending = state.withLock({ $0.registrations.first }) {
            await pending.value.value
            state.withLock { _ = $0.registrations.removeValue(forKey: pending.key) }
        }
    }

    /// Has the activity's push token issued, or its channel subscribed, in the background.
    private func register(_ id: String, _ pushType: PushType, with transport: any ActivityTransport) {
        let key = UUID()
        let task = Task {
            do {
                switch pushType {
                case .token:
                    let token = try await transport.makeUpdateToken()
                    change(id) { record, _ in
                        record.pushToken = token
                        return true
                    }
                case .channel(let channel):
                    try await transport.subscribe(channel: channel)
                }
            } catch {
                change(id) { record, _ in
                    record.problem = "\(error)"
                    return true
                }
            }
        }
        state.withLock { $0.registrations[key] = task }
    }

    /// Looks at the deadlines again when a scheduled activity is due (reads look at them too, so a test that moves
    /// the clock sees the start at its next read).
    private func wake(at start: Date) {
        let delay = start.timeIntervalSince(currentTime())
        let clock = state.withLock { $0.clock }
        Task { [weak self] in
            try? await clock.sleep(for: .milliseconds(Int(min(max(delay, 0), 86_400) * 1000) + 1))
            self?.refreshDeadlines()
        }
    }

    /// Makes an attributes type known, so pushes for it can be checked against it.
    func register(type: String, _ decoders: TypeDecoders) {
        state.withLock { $0.decoders[type] = decoders }
    }

    /// Whether `type` is known (a Swift type's or a declared one).
    func isDeclared(_ type: String) -> Bool {
        state.withLock { $0.decoders[type] != nil }
    }

    /// Every activity not yet dismissed, oldest first.
    func allRecords() -> [ActivityRecord] {
        refreshDeadlines()
        return state.withLock { state in
            state.order.compactMap { state.records[$0] }.filter { $0.state != .dismissed }
        }
    }

    /// The system's clock now.
    func currentTime() -> Date {
        state.withLock { $0.clock }.currentDate
    }

    func record(_ id: String) -> ActivityRecord? {
        refreshDeadlines()
        return state.withLock { $0.records[id] }
    }

    func ids(ofType type: String) -> [String] {
        refreshDeadlines()
        return state.withLock { state in
            state.order.filter { state.records[$0]?.attributesType == type && state.records[$0]?.state != .dismissed }
        }
    }

    func update(
        _ id: String, contentState: Data, staleDate: Date?, relevanceScore: Double, alert: AlertConfiguration? = nil
    ) {
        change(id) { record, now in
            guard record.state == .active || record.state == .pending else { return false }
            record.contentState = contentState
            record.staleDate = staleDate
            record.relevanceScore = relevanceScore
            if let alert, record.state == .active { record.alert = ActivityAlert(alert, at: now) }
            return true
        }
    }

    func end(_ id: String, contentState: Data?, policy: ActivityUIDismissalPolicy) {
        change(id) { record, now in
            guard record.state == .active else { return false }
            if let contentState { record.contentState = contentState }
            Self.end(&record, at: now, dismissal: policy)
            return true
        }
        let channel = state.withLock { $0.records[id]?.channel }
        if let channel { Task { await self.unsubscribeIfUnused(channel) } }
    }

    func pushToStartToken(type: String) async -> Data? {
        if let token = state.withLock({ $0.pushToStartTokens[type] }) { return token }
        guard let transport = state.withLock({ $0.transport }),
            let token = try? await transport.makePushToStartToken(attributesType: type)
        else { return nil }
        // Two callers may have asked at once: the first token kept is the app's.
        return state.withLock { state in
            if let kept = state.pushToStartTokens[type] { return kept }
            state.pushToStartTokens[type] = token
            return token
        }
    }

    /// Calls `observer` with every change of any activity until the returned handle is removed.
    func observe(_ observer: @escaping @Sendable (ActivityRecord) -> Void) -> UUID {
        let handle = UUID()
        state.withLock { $0.observers[handle] = observer }
        return handle
    }

    /// Calls `deliver` with the id of every activity of `type` started by push.
    func observeStarts(type: String, _ deliver: @escaping @Sendable (String) -> Void) -> UUID {
        let handle = UUID()
        state.withLock { $0.starts[handle] = (type, deliver) }
        return handle
    }

    func removeObserver(_ handle: UUID) {
        state.withLock { state in
            state.observers[handle] = nil
            state.starts[handle] = nil
        }
    }

    /// Forgets every activity and token (a test's fresh app).
    public func reset() {
        state.withLock { state in
            let transport = state.transport
            state = State()
            state.transport = transport
        }
    }
}
