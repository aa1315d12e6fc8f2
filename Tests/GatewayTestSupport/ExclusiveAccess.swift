import TestPacing

/// Runs bodies one at a time across test suites, for a resource the process has once: ActivityKit's
/// `ActivitySystem.shared`, behind the static `Activity.request`, which suites in different targets would otherwise
/// reset under each other.
package final class ExclusiveAccess: Sendable {
    /// The app's one ActivityKit system.
    package static let activitySystem = ExclusiveAccess()

    private let permit = AsyncSemaphore(count: 1)

    /// Runs `body` when no other body of this resource runs.
    package func run<T>(_ body: () async throws -> T) async rethrows -> T {
        try await permit.withPermit(body)
    }
}
