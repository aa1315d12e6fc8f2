public import Foundation
import HeraldTime
import Synchronization

/// What the device delivers to the app's activities: pushes to their tokens and broadcasts on their channels.
extension ActivitySystem {
    /// What a push did to the activities it reached.
    public enum PushOutcome: Sendable, Hashable {
        /// An activity took it (started, updated or ended).
        case applied
        /// It changed nothing: an older `timestamp`, an ended activity, a state of another type, no such token.
        case ignored
        /// A priority-10 update past the activity's hourly budget: the system dropped it.
        case throttled
    }

    /// A push with `apns-push-type: liveactivity` to one of the app's tokens: a push-to-start token starts an
    /// activity, an activity's own token updates or ends it.
    ///
    /// - Returns: whether it changed anything.
    @discardableResult
    public func receivePush(_ payload: Data, token: Data) -> Bool {
        receivePush(payload, token: token, priority: 10) == .applied
    }

    /// A push with its priority: a priority-10 update counts against the activity's hourly budget (priority 5 and 1
    /// do not), and one past it is dropped, as iOS throttles it.
    public func receivePush(_ payload: Data, token: Data, priority: Int) -> PushOutcome {
        guard let push = LiveActivityPayload(payload) else { return .ignored }
        if push.event == .start {
            let (type, decoders) = state.withLock { state in
                let type = state.pushToStartTokens.first { $0.value == token }?.key
                return (type, type.flatMap { state.decoders[$0] })
            }
            guard let type, let decoders, push.attributesType == type, let attributes = push.attributes,
                let contentState = push.contentState, decoders.attributes(attributes),
                decoders.contentState(contentState)
            else { return .ignored }
            startFromPush(push, type: type, attributes: attributes, contentState: contentState)
            return .applied
        }
        let ids = state.withLock { state in state.records.values.filter { $0.pushToken == token }.map(\.id) }
        return apply(push, to: ids, priority: priority)
    }

    /// A broadcast on a channel: it updates or ends every activity subscribed to it.
    ///
    /// - Returns: whether it changed anything.
    @discardableResult
    public func receiveBroadcast(_ payload: Data, channel: String) -> Bool {
        guard let push = LiveActivityPayload(payload), push.event != .start else { return false }
        let ids = state.withLock { state in state.records.values.filter { $0.channel == channel }.map(\.id) }
        return apply(push, to: ids, priority: 5) == .applied
    }

    func startFromPush(_ push: LiveActivityPayload, type: String, attributes: Data, contentState: Data) {
        Task {
            var token: Data?
            if push.inputPushToken, let transport = state.withLock({ $0.transport }) {
                token = try? await transport.makeUpdateToken()
            }
            if let channel = push.inputPushChannel, let transport = state.withLock({ $0.transport }) {
                try? await transport.subscribe(channel: channel)
            }
            var record = state.withLock { state in
                ActivityRecord(
                    id: UUID().uuidString, attributesType: type, attributes: attributes, contentState: contentState,
                    staleDate: push.staleDate, relevanceScore: push.relevanceScore ?? 0, timestamp: push.timestamp,
                    state: .active, pushToken: token, channel: push.inputPushChannel, startedAt: state.clock.currentDate
                )
            }
            let started = record.startedAt
            record.alert = push.alert.map {
                ActivityAlert(title: $0.title, body: $0.body, sound: $0.sound, shownAt: started)
            }
            insert(record)
            let starts = state.withLock { state in state.starts.values.filter { $0.type == type }.map(\.deliver) }
            for deliver in starts { deliver(record.id) }
        }
    }

    private func apply(_ push: LiveActivityPayload, to ids: [String], priority: Int) -> PushOutcome {
        var changed = false
        var throttled = false
        var endedChannels: Set<String> = []
        let (decoders, budget) = state.withLock { state in
            let frequent = state.supportsFrequentUpdates && state.frequentPushesEnabled
            return (state.decoders, state.priority10Budget * (frequent ? Self.frequentUpdatesFactor : 1))
        }
        defer {
            // An activity ended by push no longer needs its channel: the subscription ends with the last one.
            for channel in endedChannels { Task { await self.unsubscribeIfUnused(channel) } }
        }
        for id in ids {
            change(id) { record, now in
                guard record.state == .active else { return false }
                if let contentState = push.contentState,
                    decoders[record.attributesType]?.contentState(contentState) != true
                {
                    return false
                }
                if let timestamp = push.timestamp, let current = record.timestamp, timestamp <= current { return false }
                if priority == 10 {
                    record.priority10Pushes.removeAll { now.timeIntervalSince($0) >= 3600 }
                    guard record.priority10Pushes.count < budget else {
                        throttled = true
                        return false
                    }
                    record.priority10Pushes.append(now)
                }
                if let timestamp = push.timestamp { record.timestamp = timestamp }
                if let contentState = push.contentState { record.contentState = contentState }
                if let staleDate = push.staleDate { record.staleDate = staleDate }
                if let relevanceScore = push.relevanceScore { record.relevanceScore = relevanceScore }
                if let alert = push.alert {
                    record.alert = ActivityAlert(title: alert.title, body: alert.body, sound: alert.sound, shownAt: now)
                }
                if push.event == .end {
                    Self.end(&record, at: now, dismissal: push.dismissalDate.map { .after($0) } ?? .default)
                    if let channel = record.channel { endedChannels.insert(channel) }
                }
                changed = true
                return true
            }
        }
        return changed ? .applied : throttled ? .throttled : .ignored
    }

    /// Changes a record and tells the observers, when `body` says it changed.
}
