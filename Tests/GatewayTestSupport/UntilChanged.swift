package import HeraldSupport

/// Waits until `condition` holds, checking it again each time `changes` is notified (the gateway's channel
/// subscriptions and acknowledgements, say), never on a timer.
///
/// - Returns: whether it held within `limit`.
package func until(
    _ changes: WorkSignal, within limit: Duration = .seconds(120), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
        // Read before the condition, so a change in between wakes the wait at once.
        let seen = changes.count
        if try await condition() { return true }
        let left = deadline - ContinuousClock.now
        guard left > .zero else { return false }
        await changes.wait(after: seen, upTo: left)
    }
}
