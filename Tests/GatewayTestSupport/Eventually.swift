/// Checks `condition` until it holds or `limit` passes, pausing a few milliseconds between checks: for state another
/// process or thread changes (a device's acknowledgement reaching the gateway) with no event to wait on. A loop of
/// `Task.yield()` alone ends in microseconds on an idle machine and in nothing useful on a loaded one.
///
/// - Returns: whether it held in time.
package func eventually(within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows
    -> Bool
{
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
