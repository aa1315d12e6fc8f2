public import Foundation

/// Herald's one clock: the time of day, and waits measured on it. Everything that reads the time or waits for a
/// moment takes one (the provider and its workers, the notification center, ActivityKit, WidgetKit, the console), so a
/// test moves time with a ``ManualClock`` instead of waiting for it. ``SystemWallClock`` is the real time.
public protocol WallClock: Sendable {
    /// The time now.
    var currentDate: Date { get }
    /// Waits `duration` on this clock.
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// Waits until this clock shows `deadline` (returns at once if it already does). A loop that runs every so often
    /// waits until a moment fixed when its pass began, so a clock moved during the pass is not missed.
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The system's time, and real waits.
public struct SystemWallClock: WallClock {
    public init() {}

    public var currentDate: Date { Date() }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }

    public func sleep(until deadline: Date) async throws {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(for: .nanoseconds(Int64(min(left, 1e9) * 1e9)))
    }
}
