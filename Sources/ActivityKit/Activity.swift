public import Foundation

/// A Live Activity of the app, with ActivityKit's names: request one, update it, end it, and follow its content,
/// state and push token as they change.
///
/// ```swift
/// let activity = try await Activity.request(
///     attributes: ScoreAttributes(home: "Lions", away: "Tigers"),
///     content: .init(state: .init(score: "0-0"), staleDate: nil),
///     pushType: .channel(channelID))
/// for await content in activity.contentUpdates { print(content.state.score) }
/// ```
///
/// On iOS `request` is synchronous; here it is `async` because subscribing a channel or issuing a token is a round
/// trip to the (simulated) APNs.
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

    /// Starts an activity.
    ///
    /// - Parameters:
    ///   - attributes: what does not change.
    ///   - content: the first content.
    ///   - pushType: `.token` for updates by device push, `.channel(id)` for broadcasts on a channel, `nil` for none.
    /// - Returns: the activity, active.
    /// - Throws: ``ActivityAuthorizationError``.
    public static func request(
        attributes: Attributes, content: ActivityContent<Attributes.ContentState>, pushType: PushType? = nil
    ) async throws -> Activity<Attributes> {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let attributesJSON = try? encoder.encode(attributes),
            let stateJSON = try? encoder.encode(content.state)
        else { throw ActivityAuthorizationError.malformedActivityIdentifier }
        registerType()
        let id = try await ActivitySystem.shared.request(
            type: attributesType, attributes: attributesJSON, contentState: stateJSON, staleDate: content.staleDate,
            relevanceScore: content.relevanceScore, pushType: pushType)
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

    /// Where the activity is in its life.
    public var activityState: ActivityState {
        system.record(id)?.visibleState(at: Date()) ?? .dismissed
    }

    /// The activity's own push token (``PushType/token``), once issued.
    public var pushToken: Data? { system.record(id)?.pushToken }

    /// The channel the activity is subscribed to (``PushType/channel(_:)``).
    public var channelID: String? { system.record(id)?.channel }

    /// The push token, as it is issued.
    public var pushTokenUpdates: AsyncStream<Data> {
        stream { $0.pushToken }
    }

    /// The content each time an update changes it.
    public var contentUpdates: AsyncStream<ActivityContent<Attributes.ContentState>> {
        stream { Self.content($0) }
    }

    /// The state each time it changes.
    public var activityStateUpdates: AsyncStream<ActivityState> {
        stream { $0.visibleState(at: Date()) }
    }

    /// Changes the content.
    public func update(_ content: ActivityContent<Attributes.ContentState>) async {
        guard let state = try? Self.encoder.encode(content.state) else { return }
        system.update(id, contentState: state, staleDate: content.staleDate, relevanceScore: content.relevanceScore)
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
