import ServiceLifecycle

extension GatewayServer: Service {
    /// Serves until the service group shuts down (gracefully or by cancellation), then ``shutdown()``: `GOAWAY` to
    /// every provider, connections closed, the journal written. The gateway must have been started (``start()``),
    /// so its port is known before the group runs.
    package func run() async throws {
        try? await gracefulShutdown()
        try await shutdown()
    }
}
