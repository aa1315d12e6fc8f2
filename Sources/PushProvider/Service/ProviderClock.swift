package import Foundation

/// The provider's time, one source for what it reads and how it waits: when a notification is due (`sendAt`,
/// `dailyAt`), when leases and user tokens run out, when a retry or a paused app may send again, and every timer of
/// its workers (polling, heartbeats, the lease watcher, the daily scheduler). A test that moves the time moves the
/// timers with it instead of waiting for them.
///
/// ```swift
/// let manual = ManualClock(start: Date(timeIntervalSince1970: 1_900_000_000))
/// configuration.clock = ProviderClock(now: { manual.currentDate }, sleep: { try await manual.sleep(for: $0) })
/// ```
package struct ProviderClock: Sendable {
    /// The time now.
    package var now: @Sendable () -> Date
    /// Waits `duration` on this clock; throws when the task is cancelled.
    package var sleep: @Sendable (Duration) async throws -> Void

    /// A clock of the given reading and waiting.
    package init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system's time and real waits.
    package static let system = ProviderClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}
