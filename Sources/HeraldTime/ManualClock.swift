public import Foundation
import Synchronization

/// A clock that moves only when told: a Swift `Clock` (for time limits) and a ``WallClock`` (for dates and the waits
/// of everything that takes one) at once, so tests of time limits and schedules never wait. Moving it wakes every
/// wait it reaches.
///
/// ```swift
/// let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
/// let host = ServiceExtensionHost(timeLimit: .seconds(30), clock: clock)
/// async let content = host.process(request, with: slowExtension)
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(30))
/// ```
///
/// A system with timers of its own that must keep running while a test does not move the clock (a provider's
/// workers polling their queue) takes one made with `realTimeToo: true`: each of its waits also ends after as much
/// real time.
public final class ManualClock: Clock, WallClock, Sendable {
    /// A moment on a manual clock: the time since it started.
    public struct Instant: InstantProtocol, Sendable {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let start: Date
    /// Whether a wait (``sleep(for:)``) also ends after as much real time.
    public let realTimeToo: Bool

    /// A clock whose ``currentDate`` starts at `start`; with `realTimeToo`, whose waits also end after as much real
    /// time.
    public init(start: Date = Date(timeIntervalSince1970: 0), realTimeToo: Bool = false) {
        self.start = start
        self.realTimeToo = realTimeToo
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// The date the clock shows: its start plus the time advanced.
    public var currentDate: Date {
        start.adding(now.offset)
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let count = state.sleepers.count
                    let ready = state.sleeperWaiters.filter { $0.count <= count }
                    state.sleeperWaiters.removeAll { $0.count <= count }
                    ready.forEach { $0.continuation.resume() }
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Waits until the clock is moved `duration` on (or, ``realTimeToo``, as much real time passes).
    public func sleep(for duration: Duration) async throws {
        let deadline = now.advanced(by: duration)
        guard realTimeToo else { return try await sleep(until: deadline, tolerance: nil) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { try? await self.sleep(until: deadline, tolerance: nil) }
            await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }

    /// Waits until the clock shows `deadline` (or, ``realTimeToo``, until as much real time as was left passes).
    public func sleep(until deadline: Date) async throws {
        let left = deadline.timeIntervalSince(start)
        let instant = Instant(offset: .nanoseconds(Int64((min(max(left, -1e9), 1e9) * 1e9).rounded())))
        guard realTimeToo else { return try await sleep(until: instant, tolerance: nil) }
        let realWait = now.duration(to: instant)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: max(realWait, .zero)) }
            group.addTask { try? await self.sleep(until: instant, tolerance: nil) }
            await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }

    /// Moves the clock forward to `date` (not back: an earlier date changes nothing) and wakes every sleeper whose
    /// deadline has come.
    public func advance(to date: Date) {
        let ahead = date.timeIntervalSince(currentDate)
        guard ahead > 0 else { return }
        advance(by: .nanoseconds(Int64((ahead * 1e9).rounded())))
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        due.forEach { $0.continuation.resume() }
    }

    /// How many tasks are sleeping on the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns once at least `count` tasks are sleeping on the clock: an event to wait on instead of a sleep.
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
