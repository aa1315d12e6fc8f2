import Logging
import ServiceLifecycle
import TestPacing

/// Runs a test's HTTP server (a Hummingbird application, a device's JSON API) as the one service of a group while
/// `body` runs, then shuts the group down gracefully and waits for the server to end: the server closes its
/// listener and finishes its connections, instead of being cancelled in the middle of accepting one (NIO traps on
/// that in debug builds, swift-nio#2813).
///
/// - Parameters:
///   - server: runs the server until the group's graceful shutdown.
///   - body: the test's work while the server runs.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws, or what the server threw.
package func whileServing<T>(
    _ server: @escaping @Sendable () async throws -> Void, _ body: () async throws -> T
) async throws -> T {
    ServerSlots.requireSlot("a server")
    var quiet = Logger(label: "test-server")
    quiet.logLevel = .critical
    let group = ServiceGroup(
        configuration: ServiceGroupConfiguration(services: [ClosureService(server)], logger: quiet))
    let running = Task { try await group.run() }
    let result: Result<T, any Error>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    await group.triggerGracefulShutdown()
    try await running.value
    return try result.get()
}
