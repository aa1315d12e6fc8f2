import Synchronization

/// A counting semaphore for tasks: `acquire` suspends (holding no thread) until one of `count` permits is free.
public final class AsyncSemaphore: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// Makes a semaphore with `count` permits.
    public init(count: Int) {
        precondition(count > 0, "a semaphore needs at least one permit")
        state = Mutex(State(free: count))
    }

    /// Takes a permit, waiting in turn (first come, first served) while none is free.
    public func acquire() async {
        await withCheckedContinuation { continuation in
            let taken = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if taken { continuation.resume() }
        }
    }

    /// Gives a permit back: to the longest waiter when there is one.
    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    /// Runs `body` while holding a permit.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func withPermit<T>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }
}
