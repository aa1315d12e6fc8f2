import NIOConcurrencyHelpers

/// Bounds how many notifications are inside a client at once: senders wait for room, results make room.
final class SendWindow: Sendable {
    private struct State {
        var available: Int
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var emptyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let capacity: Int
    private let state: NIOLockedValueBox<State>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = NIOLockedValueBox(State(available: max(1, capacity)))
    }

    /// Waits until `count` places are free and takes them (a count over the capacity waits for an empty window).
    func acquire(_ count: Int) async {
        let count = min(count, capacity)
        let ready = state.withLockedValue { state in
            guard state.waiters.isEmpty, state.available >= count else { return false }
            state.available -= count
            return true
        }
        if ready { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLockedValue { state in
                if state.waiters.isEmpty, state.available >= count {
                    state.available -= count
                    return true
                }
                state.waiters.append((count, continuation))
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// The places taken now: notifications handed over and not answered yet.
    var inUse: Int { capacity - state.withLockedValue { $0.available } }

    /// Gives back `count` places and wakes the senders that now fit.
    func release(_ count: Int) {
        let woken: [CheckedContinuation<Void, Never>] = state.withLockedValue { state in
            state.available += count
            var woken: [CheckedContinuation<Void, Never>] = []
            while let first = state.waiters.first, state.available >= first.count {
                state.available -= first.count
                woken.append(first.continuation)
                state.waiters.removeFirst()
            }
            if state.available == capacity {
                woken.append(contentsOf: state.emptyWaiters)
                state.emptyWaiters.removeAll()
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    /// Waits until every place is free again: everything handed over has its result.
    func waitUntilEmpty() async {
        await withCheckedContinuation { continuation in
            let empty = state.withLockedValue { state in
                if state.available == capacity { return true }
                state.emptyWaiters.append(continuation)
                return false
            }
            if empty { continuation.resume() }
        }
    }
}
