import Logging
import ServiceLifecycle
import UnixSignals

/// How every long-running command runs (`gateway`, `serve`, `device`, `up`): its parts as swift-service-lifecycle
/// services in one `ServiceGroup`, which SIGINT or SIGTERM shuts down gracefully, the last service listed first (so
/// `herald up` stops the device, then the provider, then the gateway).
enum CommandServices {
    /// Runs `services` until a signal, or until one of them ends: a failure cancels the others and is thrown; a
    /// service configured to (a device's terminal after `quit`) shuts the others down gracefully.
    static func run(_ services: [ServiceGroupConfiguration.ServiceConfiguration], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await $shutdown.withValue({ await group.triggerGracefulShutdown() }) { try await group.run() }
    }

    /// Asks the group running the calling service to shut down gracefully, as a signal would (a device's terminal
    /// after `quit`); `false` when the caller runs in no command's group.
    static func requestShutdown() async -> Bool {
        guard let shutdown else { return false }
        await shutdown()
        return true
    }

    @TaskLocal private static var shutdown: (@Sendable () async -> Void)?
}
