package import Hummingbird
import ServiceLifecycle

extension Application {
    /// Serves until the calling task is cancelled, then shuts down gracefully: the listener closes, every
    /// connection already accepted is served to its end, and only then does this return.
    ///
    /// Cancelling `run()` itself stops the server abruptly, and a connection accepted in that moment but not yet
    /// handed to the server is dropped unfinished. NIO traps on that in debug builds ("Deinited NIOAsyncWriter
    /// without calling finish()", swift-nio#2813): a test suite whose servers stop that way crashes now and then.
    ///
    /// - Parameter gracePeriod: how long connections still open may take to end (a console's live event stream never
    ///   ends by itself) before their handlers are cancelled.
    /// - Throws: what the server throws (it cannot bind, say).
    package func runUntilCancelled(gracePeriod: Duration = .seconds(2)) async throws {
        var configuration = ServiceGroupConfiguration(services: [self], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let group = ServiceGroup(configuration: configuration)
        // Unstructured, so the caller's cancellation does not reach the server; it asks for a graceful shutdown.
        let serving = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await serving.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}
