public import Foundation
import HeraldJSON

/// An activity as JSON, for a host that has no Swift type for its attributes (a simulated device whose apps declare
/// their activity types in a manifest).
public struct ActivitySnapshot: Sendable, Hashable {
    public let id: String
    /// The attributes type's name, as push-to-start payloads give it.
    public let attributesType: String
    /// The fixed attributes, JSON.
    public let attributes: Data
    /// The current content state, JSON.
    public let contentState: Data
    /// The state as shown now (an active activity past its stale date is `stale`).
    public let state: ActivityState
    public let staleDate: Date?
    public let relevanceScore: Double
    /// The newest `timestamp` a push applied.
    public let timestamp: Int?
    /// Its own push token, for updates by device push.
    public let pushToken: Data?
    /// The channel it is subscribed to, for broadcasts.
    public let channel: String?
    public let startedAt: Date
    public let endedAt: Date?
    /// When an ended activity leaves the lock screen.
    public let dismissAt: Date?
    /// `standard` or `transient`.
    public let style: ActivityStyle
    /// A scheduled activity's start (it is `pending` until then).
    public let scheduledStart: Date?
    /// The last alert it showed (an update's `AlertConfiguration` or a push's `alert`).
    public let alert: ActivityAlert?
    /// Why it has no push token or channel subscription, when one could not be had.
    public let problem: String?
}

extension ActivitySystem {
    /// Makes an attributes type known without a Swift type: pushes for it need JSON objects as attributes and content
    /// state. A type an ``Activity`` already registered keeps its stricter checks.
    public func declare(type: String) {
        let isObject: @Sendable (Data) -> Bool = { data in
            (try? JSONValue(parsing: data))?.object != nil
        }
        if !isDeclared(type) { register(type: type, .init(contentState: isObject, attributes: isObject)) }
    }

    /// The system's clock now (the device's; a test moves it).
    public var now: Date { currentTime() }

    /// Every activity not yet dismissed, oldest first.
    public var snapshots: [ActivitySnapshot] {
        allRecords().map { Self.snapshot($0, at: currentTime()) }
    }

    /// One activity, dismissed ones included, while the system remembers it.
    public func snapshot(id: String) -> ActivitySnapshot? {
        record(id).map { Self.snapshot($0, at: currentTime()) }
    }

    /// Starts (or, with `start` after now, schedules) an activity from JSON, as
    /// ``Activity/request(attributes:content:pushType:style:alertConfiguration:start:)`` does from Swift values.
    ///
    /// Unlike `request`, it returns once the push token is issued or the channel subscribed, so the answer can
    /// carry them.
    ///
    /// - Returns: its identifier.
    /// - Throws: ``ActivityAuthorizationError`` when activities are off, or no device can issue its token (the
    ///   activity is then dismissed).
    public func start(
        type: String, attributes: Data, contentState: Data, pushType: PushType?, style: ActivityStyle = .standard,
        alert: AlertConfiguration? = nil, start: Date? = nil
    ) async throws(ActivityAuthorizationError) -> String {
        declare(type: type)
        let id = try request(
            type: type, attributes: attributes, contentState: contentState, staleDate: nil, relevanceScore: 0,
            pushType: pushType, style: style, alert: alert, start: start)
        await settled()
        if let problem = record(id)?.problem {
            end(id, contentState: nil, policy: .immediate)
            throw .unsupported(problem)
        }
        return id
    }

    /// Changes an active activity's content state, as the app does with ``Activity/update(_:alertConfiguration:)``.
    ///
    /// - Returns: whether the activity exists and was active.
    @discardableResult
    public func update(id: String, contentState: Data, alert: AlertConfiguration? = nil) -> Bool {
        guard let record = record(id), record.state == .active else { return false }
        update(
            id, contentState: contentState, staleDate: record.staleDate, relevanceScore: record.relevanceScore,
            alert: alert)
        return true
    }

    /// Ends an active activity, as the app does with ``Activity/end(_:dismissalPolicy:)``.
    ///
    /// - Returns: whether the activity exists and was active.
    @discardableResult
    public func end(id: String, contentState: Data?, dismissalPolicy: ActivityUIDismissalPolicy) -> Bool {
        guard record(id)?.state == .active else { return false }
        end(id, contentState: contentState, policy: dismissalPolicy)
        return true
    }

    /// The app's push-to-start token for an attributes type, issued by the attached device on first use.
    public func pushToStartToken(forType type: String) async -> Data? {
        declare(type: type)
        return await pushToStartToken(type: type)
    }

    /// Calls `observer` with every change of any activity (a start, an update, an end, a new token) until
    /// ``stopObserving(_:)``.
    public func observeActivities(_ observer: @escaping @Sendable (ActivitySnapshot) -> Void) -> UUID {
        observe { [weak self] record in
            guard let self else { return }
            observer(Self.snapshot(record, at: self.currentTime()))
        }
    }

    /// Ends an observation.
    public func stopObserving(_ handle: UUID) {
        removeObserver(handle)
    }

    private static func snapshot(_ record: ActivityRecord, at now: Date) -> ActivitySnapshot {
        ActivitySnapshot(
            id: record.id, attributesType: record.attributesType, attributes: record.attributes,
            contentState: record.contentState, state: record.visibleState(at: now), staleDate: record.staleDate,
            relevanceScore: record.relevanceScore, timestamp: record.timestamp, pushToken: record.pushToken,
            channel: record.channel, startedAt: record.startedAt, endedAt: record.endedAt, dismissAt: record.dismissAt,
            style: record.style, scheduledStart: record.scheduledStart, alert: record.alert, problem: record.problem)
    }
}
