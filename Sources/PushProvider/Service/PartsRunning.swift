import Synchronization

/// The provider's parts still running that use its store: the store waits for the last to end before it closes.
final class PartsRunning: Sendable {
    private let state: Mutex<(running: Int, waiters: [CheckedContinuation<Void, Never>])>

    /// `count` parts, all running.
    init(count: Int) {
        state = Mutex((count, []))
    }

    /// One part ended.
    func ended() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running <= 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Returns once every part has ended (at once if they have). Not cancellable: the store must not close under a
    /// part still using it.
    func allEnded() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                guard state.running > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
