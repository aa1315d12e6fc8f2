import Logging
import ServiceLifecycle
import UnixSignals

/// How every long-running command runs (`gateway`, `serve`, `device`, `up`): its parts as swift-service-lifecycle
/// services in one `ServiceGroup`, which SIGINT or SIGTERM shuts down gracefully, the last service listed first (so
/// `herald up` stops the device, then the provider, then the gateway).
enum CommandServices {
    /// Runs `services` until a signal, or until one of them ends: a failure cancels the others and is thrown; a
    /// service configured to (a device's terminal after `quit`) shuts the others down gracefully.
    ///
    /// - Parameters:
    ///   - services: the command's parts, in the order they start.
    ///   - logger: the group's logger.
    ///   - shutdown: what a service uses to shut the group down as a signal would.
    /// - Throws: the first failure of a service.
    static func run(
        _ services: [ServiceGroupConfiguration.ServiceConfiguration], logger: Logger,
        shutdown: CommandShutdown = CommandShutdown()
    ) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        shutdown.attach(group)
        try await group.run()
    }
}
