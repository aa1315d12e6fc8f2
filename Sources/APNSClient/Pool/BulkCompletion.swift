import NIOConcurrencyHelpers

/// Counts one bulk send's notifications in and out, so the send returns when the last one has its outcome.
final class BulkCompletion: Sendable {
    private struct State {
        var handedOver = 0
        var finished = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())

    func handedOver(_ count: Int) {
        state.withLockedValue { $0.handedOver += count }
    }

    func finishedOne() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLockedValue { state in
            state.finished += 1
            guard state.finished == state.handedOver, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once every notification handed over has finished.
    func waitForAll() async {
        await withCheckedContinuation { continuation in
            let done = state.withLockedValue { state in
                if state.finished == state.handedOver { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
