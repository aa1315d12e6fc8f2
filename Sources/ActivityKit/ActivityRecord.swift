import Foundation

/// One activity as the system keeps it, whatever its attributes type: attributes and state as JSON.
struct ActivityRecord: Sendable {
    let id: String
    let attributesType: String
    let attributes: Data
    var contentState: Data
    var staleDate: Date?
    var relevanceScore: Double
    /// The newest `timestamp` applied; an update with one not newer is ignored.
    var timestamp: Int?
    var state: ActivityState
    var pushToken: Data?
    var channel: String?
    let startedAt: Date
    var endedAt: Date?
    var dismissAt: Date?
    /// `standard` or `transient` (iOS 18).
    var style: ActivityStyle = .standard
    /// A scheduled activity's start (iOS 26): it is `pending` until then.
    var scheduledStart: Date?
    /// The alert a scheduled activity shows when it starts.
    var startAlert: AlertConfiguration?
    /// The last alert the activity showed.
    var alert: ActivityAlert?
    /// Why its push token or channel subscription could not be had (it then gets no pushes).
    var problem: String?
    /// When it took each priority-10 push of the last hour: what the system's budget counts.
    var priority10Pushes: [Date] = []

    /// The state as shown at `now`: an active activity past its stale date is stale.
    func visibleState(at now: Date) -> ActivityState {
        if state == .active, let staleDate, staleDate <= now { return .stale }
        return state
    }
}
