import Foundation
import HeraldTime
import Testing

/// The clock tests move: a wait until a fixed moment is kept even when the clock moves before the wait begins (a
/// periodic loop whose pass ran while a test moved the clock).
@Suite("ManualClock: waits until a moment, moved past or not")
struct ManualClockTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a wait until a moment the clock already passed returns at once; a wait of the same length would not")
    func movedBeforeTheWait() async throws {
        let clock = ManualClock(start: Self.start)
        // A pass begins at the start and is due again 600 s later; the clock moves 601 s during the pass.
        let passBegan = clock.currentDate
        clock.advance(by: .seconds(601))
        try await clock.sleep(until: passBegan.adding(.seconds(600)))
        #expect(clock.sleeperCount == 0)

        // Waiting 600 s from here instead waits for a move that already happened.
        let relative = Task { try await clock.sleep(for: .seconds(600)) }
        await clock.waitForSleepers(1)
        #expect(clock.sleeperCount == 1)
        relative.cancel()
        await #expect(throws: CancellationError.self) { try await relative.value }
    }

    @Test("a wait until a later moment ends when the clock reaches it, not before")
    func reachesTheMoment() async throws {
        let clock = ManualClock(start: Self.start)
        let waiter = Task { try await clock.sleep(until: Self.start.addingTimeInterval(600)) }
        await clock.waitForSleepers(1)
        clock.advance(to: Self.start.addingTimeInterval(599))
        #expect(clock.sleeperCount == 1)
        clock.advance(to: Self.start.addingTimeInterval(600))
        try await waiter.value
        #expect(clock.sleeperCount == 0)
    }

    @Test("with real time too, a wait until a moment also ends after the real time that was left")
    func realTimeToo() async throws {
        let clock = ManualClock(start: Self.start, realTimeToo: true)
        let began = ContinuousClock.now
        try await clock.sleep(until: Self.start.addingTimeInterval(0.05))
        #expect(ContinuousClock.now - began >= .milliseconds(45))
        #expect(clock.currentDate == Self.start, "the clock itself did not move")
    }

    @Test("the system clock's wait until a past moment returns at once; until 50 ms on, after them")
    func systemClock() async throws {
        let clock = SystemWallClock()
        let began = ContinuousClock.now
        try await clock.sleep(until: Date().addingTimeInterval(-1e30))
        try await clock.sleep(until: Date().addingTimeInterval(0.05))
        #expect(ContinuousClock.now - began >= .milliseconds(45))
    }
}
