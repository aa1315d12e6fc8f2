public import Foundation

/// A Live Activity of the app, with ActivityKit's names and signatures: request one, update it, end it, and follow
/// its content, state and push token as they change.
///
/// ```swift
/// let activity = try Activity.request(
///     attributes: ScoreAttributes(home: "Lions", away: "Tigers"),
///     content: .init(state: .init(score: "0-0"), staleDate: nil),
///     pushType: .token)
/// for await token in activity.pushTokenUpdates { send(token) }
/// ```
///
/// As on iOS, `request` returns at once; the push token is issued (and a channel subscribed) afterwards, over the
/// simulated device's connection, and arrives through ``pushTokenUpdates``.
public final class Activity<Attributes: ActivityAttributes>: Sendable, Identifiable {
    /// The activity's identifier.
    public let id: String
    /// The fixed attributes it was started with.
    public let attributes: Attributes
    private let system: ActivitySystem

    private init(id: String, attributes: Attributes, system: ActivitySystem) {
        self.id = id
        self.attributes = attributes
        self.system = system
    }

    /// The name a push-to-start payload gives in `attributes-type`.
    public static var attributesType: String { String(describing: Attributes.self) }

    /// The system learns this type: pushes whose JSON does not decode as it are ignored.
    private static func registerType() {
        ActivitySystem.shared.register(
            type: attributesType,
            .init(
                contentState: { (try? JSONDecoder().decode(Attributes.ContentState.self, from: $0)) != nil },
                attributes: { (try? JSONDecoder().decode(Attributes.self, from: $0)) != nil }))
    }

    /// Requests and starts a standard Live Activity (iOS 16.2).
    ///
    /// - Parameters:
    ///   - attributes: what does not change.
    ///   - content: the first content.
    ///   - pushType: `.token` for updates by device push, `.channel(id)` for broadcasts on a channel, `nil` for none.
    /// - Returns: the activity, active.
    /// - Throws: ``ActivityAuthorizationError``: `.denied` when Live Activities are off for the app.
    public static func request(
        attributes: Attributes, content: ActivityContent<Attributes.ContentState>, pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        try request(attributes: attributes, content: content, pushType: pushType, style: .standard)
    }

    /// Requests and starts a Live Activity of a style (iOS 18): `.transient` ones leave the Lock Screen when the
    /// device is locked.
    public static func request(
        attributes: Attributes, content: ActivityContent<Attributes.ContentState>, pushType: PushType? = nil,
        style: ActivityStyle
    ) throws -> Activity<Attributes> {
        try start(attributes: attributes, content: content, pushType: pushType, style: style, alert: nil, at: nil)
    }

    /// Requests and schedules a Live Activity for a date (iOS 26): it is ``ActivityState/pending`` until `start`
    /// (on the device's clock), then active, showing `alertConfiguration`'s alert. A `start` that is not after now
    /// starts it at once.
    public static func request(
        attributes: Attributes, content: ActivityContent<Attributes.ContentState>, pushType: PushType? = nil,
        style: ActivityStyle, alertConfiguration: AlertConfiguration, start: Date
    ) throws -> Activity<Attributes> {
        try self.start(
            attributes: attributes, content: content, pushType: pushType, style: style, alert: alertConfiguration,
            at: start)
    }

    private static func start(
        attributes: Attributes, content: ActivityContent<Attributes.ContentState>, pushType: PushType?,
        style: ActivityStyle, alert: AlertConfiguration?, at start: Date?
    ) throws(ActivityAuthorizationError) -> Activity<Attributes> {
        guard let attributesJSON = try? encoder.encode(attributes), let stateJSON = try? encoder.encode(content.state)
        else { throw .malformedActivityIdentifier }
        registerType()
        let id = try ActivitySystem.shared.request(
            type: attributesType, attributes: attributesJSON, contentState: stateJSON, staleDate: content.staleDate,
            relevanceScore: content.relevanceScore, pushType: pushType, style: style, alert: alert, start: start)
        return Activity(id: id, attributes: attributes, system: .shared)
    }

    /// The app's activities of this type that are not dismissed, oldest first.
    public static var activities: [Activity<Attributes>] {
        ActivitySystem.shared.ids(ofType: attributesType).compactMap { activity(id: $0) }
    }

    /// The push-to-start token for this type, once the device has issued it.
    public static var pushToStartToken: Data? {
        get async {
            registerType()
            return await ActivitySystem.shared.pushToStartToken(type: attributesType)
        }
    }

    /// The push-to-start token as it is issued (the first value comes at once).
    public static var pushToStartTokenUpdates: AsyncStream<Data> {
        registerType()
        return AsyncStream { continuation in
            let task = Task {
                if let token = await ActivitySystem.shared.pushToStartToken(type: attributesType) {
                    continuation.yield(token)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Activities of this type started by a push-to-start push, as they start.
    public static var activityUpdates: AsyncStream<Activity<Attributes>> {
        registerType()
        return AsyncStream { continuation in
            let handle = ActivitySystem.shared.observeStarts(type: attributesType) { id in
                if let activity = activity(id: id) { continuation.yield(activity) }
            }
            continuation.onTermination = { _ in ActivitySystem.shared.removeObserver(handle) }
        }
    }

    /// The current content.
    public var content: ActivityContent<Attributes.ContentState> {
        guard let record = system.record(id), let content = Self.content(record) else {
            preconditionFailure("activity \(id) has no content")
        }
        return content
    }

    /// Where the activity is in its life, on the system's clock (``ActivitySystem/setClock(_:)``).
    public var activityState: ActivityState {
        system.record(id)?.visibleState(at: system.currentTime()) ?? .dismissed
    }

    /// The activity's own push token (``PushType/token``), once issued.
    public var pushToken: Data? { system.record(id)?.pushToken }

    /// The channel the activity is subscribed to (``PushType/channel(_:)``).
    public var channelID: String? { system.record(id)?.channel }

    /// The push token: the current one first (when it was issued already), then each new one.
    public var pushTokenUpdates: AsyncStream<Data> {
        let current = pushToken
        let updates = stream { $0.pushToken }
        return AsyncStream { continuation in
            if let current { continuation.yield(current) }
            let task = Task {
                var last = current
                for await token in updates where token != last {
                    last = token
                    continuation.yield(token)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The style it was requested with.
    public var activityStyle: ActivityStyle { system.record(id)?.style ?? .standard }

    /// The content each time an update changes it.
    public var contentUpdates: AsyncStream<ActivityContent<Attributes.ContentState>> {
        stream { Self.content($0) }
    }

    /// The state each time it changes (a content update that leaves it as it was is not a change).
    public var activityStateUpdates: AsyncStream<ActivityState> {
        let current = activityState
        let system = self.system
        let updates = stream { $0.visibleState(at: system.currentTime()) }
        return AsyncStream { continuation in
            let task = Task {
                var last = current
                for await state in updates where state != last {
                    last = state
                    continuation.yield(state)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Changes the content.
    public func update(_ content: ActivityContent<Attributes.ContentState>) async {
        await update(content, alertConfiguration: nil)
    }

    /// Changes the content and alerts the person (the device shows the alert: title, body, sound).
    public func update(
        _ content: ActivityContent<Attributes.ContentState>, alertConfiguration: AlertConfiguration?
    ) async {
        guard let state = try? Self.encoder.encode(content.state) else { return }
        system.update(
            id, contentState: state, staleDate: content.staleDate, relevanceScore: content.relevanceScore,
            alert: alertConfiguration)
    }

    /// Ends the activity, with a last content when given.
    public func end(_ content: ActivityContent<Attributes.ContentState>?, dismissalPolicy: ActivityUIDismissalPolicy)
        async
    {
        let state = content.flatMap { try? Self.encoder.encode($0.state) }
        system.end(id, contentState: state, policy: dismissalPolicy)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private static func activity(id: String) -> Activity<Attributes>? {
        guard let record = ActivitySystem.shared.record(id),
            let attributes = try? JSONDecoder().decode(Attributes.self, from: record.attributes)
        else { return nil }
        return Activity(id: id, attributes: attributes, system: .shared)
    }

    private static func content(_ record: ActivityRecord) -> ActivityContent<Attributes.ContentState>? {
        guard let state = try? JSONDecoder().decode(Attributes.ContentState.self, from: record.contentState) else {
            return nil
        }
        return ActivityContent(state: state, staleDate: record.staleDate, relevanceScore: record.relevanceScore)
    }

    /// A stream of `value` of this activity's record after each change that gives one, ending with the activity.
    private func stream<Value: Sendable>(_ value: @escaping @Sendable (ActivityRecord) -> Value?) -> AsyncStream<Value>
    {
        let id = self.id
        return AsyncStream { continuation in
            let handle = system.observe { record in
                guard record.id == id else { return }
                if let element = value(record) { continuation.yield(element) }
                if record.state == .dismissed { continuation.finish() }
            }
            continuation.onTermination = { [system] _ in system.removeObserver(handle) }
        }
    }
}
