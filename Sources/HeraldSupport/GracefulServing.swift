package import ServiceLifecycle

/// Runs a server (a Hummingbird application) until the graceful shutdown of the service group it runs in, then
/// gives the connections still open `gracePeriod` to end before they are closed (a console's live view or a
/// device's event stream never ends by itself). Cancelling the task stops the server at once.
///
/// - Parameters:
///   - application: the server; it stops taking connections when the shutdown begins, and ends with its last one.
///   - gracePeriod: how long connections still open may take to end.
///   - onShutdown: called when the shutdown reaches the server.
/// - Throws: what the server throws (it cannot bind, say).
package func serveUntilShutdown(
    _ application: some Service, gracePeriod: Duration, onShutdown: @escaping @Sendable () -> Void = {}
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await application.run() }
        group.addTask {
            try await gracefulShutdown()
            onShutdown()
            try await Task.sleep(for: gracePeriod)
        }
        try await group.next()
        group.cancelAll()
    }
}
