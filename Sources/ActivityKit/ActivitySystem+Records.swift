import Foundation
import HeraldTime
import Synchronization

/// The records inside: adding and changing them, ending an activity, the deadlines that end and dismiss them, and
/// channels no activity uses any more.
extension ActivitySystem {
    func insert(_ record: ActivityRecord) {
        let observers = state.withLock { state in
            state.records[record.id] = record
            state.order.append(record.id)
            return Array(state.observers.values)
        }
        for observer in observers { observer(record) }
    }

    func change(_ id: String, _ body: (inout ActivityRecord, Date) -> Bool) {
        let (record, observers) = state.withLock { state -> (ActivityRecord?, [@Sendable (ActivityRecord) -> Void]) in
            guard var record = state.records[id], body(&record, state.clock.currentDate) else { return (nil, []) }
            state.records[id] = record
            return (record, Array(state.observers.values))
        }
        guard let record else { return }
        for observer in observers { observer(record) }
    }

    static func end(_ record: inout ActivityRecord, at now: Date, dismissal: ActivityUIDismissalPolicy) {
        record.state = .ended
        record.endedAt = now
        let latest = now.addingTimeInterval(dismissalLimit)
        switch dismissal {
        case .default: record.dismissAt = latest
        case .immediate: record.dismissAt = now
        case .after(let date): record.dismissAt = min(max(date, now), latest)
        }
    }

    /// Ends activities active for 8 hours and dismisses ended ones past their dismissal date.
    func refreshDeadlines() {
        let now = state.withLock { $0.clock.currentDate }
        let due = state.withLock { state in
            state.records.values.filter { record in
                (record.state == .pending && (record.scheduledStart ?? .distantFuture) <= now)
                    || (record.state == .active && now.timeIntervalSince(record.startedAt) >= Self.activeLimit)
                    || (record.state == .ended && (record.dismissAt ?? .distantFuture) <= now)
            }.map(\.id)
        }
        for id in due {
            change(id) { record, now in
                if record.state == .pending, let start = record.scheduledStart, start <= now {
                    record.state = .active
                    record.alert = record.startAlert.map { ActivityAlert($0, at: start) }
                    record.startAlert = nil
                }
                if record.state == .active, now.timeIntervalSince(record.startedAt) >= Self.activeLimit {
                    Self.end(&record, at: record.startedAt.addingTimeInterval(Self.activeLimit), dismissal: .default)
                }
                if record.state == .ended, (record.dismissAt ?? .distantFuture) <= now { record.state = .dismissed }
                return true
            }
        }
    }

    func unsubscribeIfUnused(_ channel: String) async {
        let (unused, transport) = state.withLock { state in
            (!state.records.values.contains { $0.channel == channel && $0.state == .active }, state.transport)
        }
        if unused { await transport?.unsubscribe(channel: channel) }
    }
}
