public import ServiceLifecycle

extension PushProviderService {
    /// The provider as a swift-service-lifecycle `Service`: it serves and delivers as ``run(plugins:onListening:)``
    /// does until its service group shuts down, then stops taking requests, lets the deliveries in flight finish and
    /// records them.
    ///
    /// - Parameters:
    ///   - plugins: modules served beside the API, such as the console.
    ///   - onListening: called with the bound port once the API accepts connections.
    ///   - onShutdown: called when the graceful shutdown begins.
    /// - Returns: the service, to run in a `ServiceGroup`.
    public func service(
        plugins: [any ProviderPlugin] = [], onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onShutdown: @escaping @Sendable () -> Void = {}
    ) -> some Service {
        ClosureService {
            try await withGracefulShutdownHandler {
                try await cancelWhenGracefulShutdown {
                    try await self.run(plugins: plugins, onListening: onListening)
                }
            } onGracefulShutdown: {
                onShutdown()
            }
        }
    }
}
