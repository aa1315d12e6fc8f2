import HeraldSupport
import Hummingbird
import HummingbirdTLS
import Logging
import ProviderStorage
package import ServiceLifecycle
import Synchronization

extension PushProviderService {
    /// The provider's parts as the services of one `ServiceGroup` (the command's): they start in this order and the
    /// group stops them in reverse. The API stops taking requests first (connections still open, a console's live
    /// views, get ``apiGracePeriod``), then the plugins and the daily scheduler, then the engine, which finishes the
    /// deliveries in flight and records them; the APNs clients and the store close last.
    ///
    /// - Parameters:
    ///   - plugins: modules served beside the API, such as the console.
    ///   - onListening: called with the bound port once the API accepts connections.
    ///   - onShutdown: called when the graceful shutdown reaches the provider.
    /// - Returns: the services, to list in a `ServiceGroup` in this order.
    /// - Throws: when the API's TLS configuration cannot be used.
    package func services(
        plugins: [any ProviderPlugin] = [], onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onShutdown: @escaping @Sendable () -> Void = {}
    ) throws -> [ServiceGroupConfiguration.ServiceConfiguration] {
        self.plugins.withLock { $0 = plugins }
        let (engine, clients, store, scheduler, webhooks) = (engine, clients, store, scheduler, webhooks)
        let pruner = RetentionPruner(
            store: store,
            settings: RetentionPruner.Settings(
                defaults: configuration.retention, interval: configuration.pruneInterval),
            metrics: metrics, failures: failures, clock: configuration.clock, changes: engine.changes)
        let application = try makeApplication(plugins: plugins, onListening: onListening)
        // Every part that uses the store, counted out as it ends: the store closes after the last, whether the group
        // shuts down gracefully (one part after the other) or is cancelled by a part's failure (all at once, when
        // the engine still puts its leases back).
        let users = PartsRunning(count: 5 + plugins.count)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: ClosureService {
                    try? await gracefulShutdown()
                    await users.allEnded()
                    await clients.shutdown()
                    await store.close()
                },
                serviceName: "store"),
            part("engine", users) { await engine.run() },
            part("daily scheduler", users) { await scheduler.run() },
            part("retention pruner", users) { await pruner.run() },
            part("webhook sender", users) { await webhooks.run() },
        ]
        for plugin in plugins {
            services.append(part("\(plugin)", users, ending: .ignore) { await plugin.run(provider: self) })
        }
        services.append(
            .init(
                service: ClosureService {
                    defer { users.ended() }
                    try await serveUntilShutdown(application, gracePeriod: Self.apiGracePeriod, onShutdown: onShutdown)
                },
                serviceName: "provider API"))
        return services
    }

    /// A part that uses the store: it runs until the graceful shutdown reaches it, and is counted out of `users` as it
    /// ends.
    private func part(
        _ name: String, _ users: PartsRunning,
        ending: ServiceGroupConfiguration.ServiceConfiguration.TerminationBehavior = .cancelGroup,
        _ body: @escaping @Sendable () async -> Void
    ) -> ServiceGroupConfiguration.ServiceConfiguration {
        let service = ClosureService {
            defer { users.ended() }
            await cancelWhenGracefulShutdown { await body() }
        }
        return .init(service: service, successTerminationBehavior: ending, serviceName: name)
    }

    /// How long connections still open when the API stops may take to end (a console's live view never ends by
    /// itself) before they are closed.
    package static let apiGracePeriod: Duration = .seconds(2)

    private func makeApplication(
        plugins: [any ProviderPlugin], onListening: @escaping @Sendable (Int) async -> Void
    ) throws -> some ApplicationProtocol & Service {
        var quiet = logger
        quiet.logLevel = .critical
        let server =
            try configuration.tls.map { try .tls(configuration.httpLimits.server(), tlsConfiguration: $0) }
            ?? configuration.httpLimits.server()
        return Application(
            router: makeRouter(plugins: plugins),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "herald-provider"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? self.configuration.port) },
            logger: quiet
        )
    }
}
