import Foundation
import HeraldSupport
import HeraldTime
import Logging
import ProviderStorage

@testable import PushProvider

/// A delivery engine on an in-memory queue, scripted senders and a manual clock: no socket, no database, no real
/// wait. Tests wait on the queue's changes, and move the clock where the engine would wait.
struct EngineHarness {
    let queue = InMemoryDeliveryQueue()
    let senders = ScriptedSenders()
    let clock = ManualClock(start: Date(timeIntervalSince1970: 1_900_000_000))
    let engine: DeliveryEngine
    /// When the test started, on the manual clock.
    let start: Date

    init(workers: Int = 2, maximumAttempts: Int = 4) {
        var settings = DeliveryEngine.Settings()
        settings.workers = workers
        settings.maximumAttempts = maximumAttempts
        settings.clock = clock
        let logger = Logger(label: "engine-test") { _ in SwiftLogNoOpLogHandler() }
        engine = DeliveryEngine(
            queue: queue, senders: senders, settings: settings,
            failures: FailureReporter(logger: logger, metrics: ProviderMetrics()), changes: WorkSignal())
        start = clock.currentDate
    }

    /// The manual clock's time.
    var now: Date { clock.currentDate }

    /// Runs the engine while `body` runs, then stops it (it puts back what it holds) and waits until it has.
    func running(_ body: () async throws -> Void) async throws {
        let engine = self.engine
        let run = Task { await engine.run() }
        do {
            try await body()
        } catch {
            run.cancel()
            await run.value
            throw error
        }
        run.cancel()
        await run.value
    }

    /// Returns once `condition` holds, checked after every change of the queue; fails after two minutes of real time
    /// (it takes milliseconds; a machine running every test at once may not run this one for many seconds).
    func until(_ what: String, _ condition: () -> Bool) async throws {
        let began = ContinuousClock.now
        while true {
            let seen = queue.changed.count
            if condition() { return }
            guard ContinuousClock.now - began < .seconds(120) else {
                throw WaitTimeout(
                    what: what, waited: ContinuousClock.now - began, lastSeen: "\(seen) changes of the queue")
            }
            await queue.changed.wait(after: seen, upTo: .seconds(1))
        }
    }

    /// Moves the clock on and tells the engine (as new work would), so workers look at the queue at the new time.
    func advance(by duration: Duration) {
        clock.advance(by: duration)
        engine.notify()
    }

    /// Moves the clock on `step` at a time, until `condition` holds: for the engine's own short waits (a write tried
    /// again, a lease call tried again), whose start a test cannot see. At most 400 steps.
    func advance(by step: Duration, until what: String, _ condition: () -> Bool) async throws {
        let began = ContinuousClock.now
        for _ in 0..<400 {
            let seen = queue.changed.count
            if condition() { return }
            advance(by: step)
            await queue.changed.wait(after: seen, upTo: .milliseconds(50))
        }
        throw WaitTimeout(
            what: what, waited: ContinuousClock.now - began,
            lastSeen: "400 steps of \(step) on the test clock, \(queue.changed.count) changes of the queue")
    }

    /// The rows of notification `id`, in number order.
    func rows(of id: String) -> [InMemoryDeliveryQueue.Row] {
        queue.rows.filter { $0.delivery.notificationID == id }
    }

    /// Whether every row of notification `id` is in `state`.
    func all(of id: String, are state: InMemoryDeliveryQueue.State) -> Bool {
        let rows = rows(of: id)
        return !rows.isEmpty && rows.allSatisfy { $0.state == state }
    }
}
