package import DeviceSimulator
import Foundation
import Synchronization

/// Collects a simulated device's events from the moment it is made, and hands each to the first wait that wants it:
/// a test waits for what the device did, never for a fixed time.
///
/// ```swift
/// let log = DeviceEventLog(device)
/// // ... send a push ...
/// let shown = try await log.next(.displayed) { $0.bundleID == "com.example.app" }
/// ```
package final class DeviceEventLog: Sendable {
    private struct Waiter {
        let id: UUID
        let matches: @Sendable (DeviceEvent) -> Bool
        let continuation: CheckedContinuation<DeviceEvent, any Error>
    }

    private struct State {
        var unclaimed: [DeviceEvent] = []
        var waiters: [Waiter] = []
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let reader: Task<Void, Never>

    /// Starts collecting `device`'s events.
    package init(_ device: SimulatedDevice) {
        let events = device.events()
        let shared = self.shared
        reader = Task { [shared] in
            for await event in events {
                let waiter = shared.state.withLock { state -> Waiter? in
                    if let index = state.waiters.firstIndex(where: { $0.matches(event) }) {
                        return state.waiters.remove(at: index)
                    }
                    state.unclaimed.append(event)
                    // A long test that never waits for most events (a busy device) keeps only the latest.
                    if state.unclaimed.count > DeviceEventLog.keptEvents { state.unclaimed.removeFirst() }
                    return nil
                }
                waiter?.continuation.resume(returning: event)
            }
        }
    }

    deinit { reader.cancel() }

    /// The most events kept that no wait has taken; beyond it the oldest go.
    package static let keptEvents = 10_000

    /// The next event of `kind` matching `predicate`, whether it happened before this call or happens after; each
    /// event is handed to one wait only.
    ///
    /// - Throws: ``HeraldTestingError`` when none comes within `within`.
    package func next(
        _ kind: DeviceEvent.Kind, within: Duration = .seconds(20),
        where predicate: @escaping @Sendable (DeviceEvent) -> Bool = { _ in true }
    ) async throws -> DeviceEvent {
        let id = UUID()
        let matches: @Sendable (DeviceEvent) -> Bool = { $0.kind == kind && predicate($0) }
        let shared = self.shared
        let timeout = Task { [shared] in
            try? await Task.sleep(for: within)
            let waiter = shared.state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(
                throwing: HeraldTestingError("no \(kind.rawValue) event came within \(within)"))
        }
        defer { timeout.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = shared.state.withLock { state -> DeviceEvent? in
                if let index = state.unclaimed.firstIndex(where: matches) { return state.unclaimed.remove(at: index) }
                state.waiters.append(Waiter(id: id, matches: matches, continuation: continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
