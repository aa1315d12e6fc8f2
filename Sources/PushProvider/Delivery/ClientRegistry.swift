import APNSClient
import APNSCore
import Foundation
import Logging
import ProviderStorage

/// One `APNSPushClient` per app, made on first use from its stored credentials and remade when the app changes.
actor ClientRegistry {
    private var clients: [String: (version: Date, client: APNSPushClient)] = [:]
    private let secrets: SecretBox
    private let observer: ProviderMetrics
    private let connectionsPerApp: Int
    private let logger: Logger

    init(secrets: SecretBox, observer: ProviderMetrics, connectionsPerApp: Int, logger: Logger) {
        self.secrets = secrets
        self.observer = observer
        self.connectionsPerApp = connectionsPerApp
        self.logger = logger
    }

    /// The client for `app`.
    ///
    /// - Throws: ``ProviderError`` when its credentials cannot be opened or used.
    func client(for app: StoredApp) throws(ProviderError) -> APNSPushClient {
        if let current = clients[app.app.id], current.version == app.app.updatedAt { return current.client }
        var logger = logger
        logger[metadataKey: "app"] = "\(app.app.id)"
        let client = try Self.makeClient(
            for: app, secrets: secrets, observer: observer, connections: connectionsPerApp, logger: logger)
        if let old = clients[app.app.id]?.client { Task { await old.shutdown() } }
        clients[app.app.id] = (app.app.updatedAt, client)
        return client
    }

    /// A client of its own for `herald doctor --app`'s probe of `app`'s credentials: its push is not one of the
    /// provider's sends, so it is not counted in their metrics. The caller shuts it down.
    ///
    /// - Throws: ``ProviderError`` when its credentials cannot be opened or used.
    func checkClient(for app: StoredApp) throws(ProviderError) -> APNSPushClient {
        try Self.makeClient(for: app, secrets: secrets, observer: Unobserved(), connections: 1, logger: logger)
    }

    /// Notifications every app's client holds and APNs has not answered yet.
    func notificationsInFlight() -> Int {
        clients.values.reduce(0) { $0 + $1.client.notificationsInFlight }
    }

    /// Waits for every client's notifications to end, then closes their connections.
    func shutdown() async {
        for (_, entry) in clients { await entry.client.shutdown() }
        clients = [:]
    }

    static func makeClient(
        for app: StoredApp, secrets: SecretBox, observer: any APNSClientObserver, connections: Int, logger: Logger
    )
        throws(ProviderError) -> APNSPushClient
    {
        let credentials = try boundCredentials(of: app, secrets: secrets)
        let endpoint: APNSEndpoint
        do {
            endpoint = try APNSEndpoint(url: app.app.endpoint, additionalTrustRootsPEM: app.caPEM)
        } catch {
            throw .configuration("app \(app.app.id) has a bad endpoint \(app.app.endpoint): \(error)")
        }
        var configuration = APNSPushClient.Configuration(
            endpoint: endpoint, authentication: try credentials.clientAuthentication())
        configuration.maximumConnections = connections
        // The engine decides every retry of an answer APNs gave (DeliveryEngine.retryOrGiveUp), counted in the
        // database across leases and restarts: the client must not multiply them.
        configuration.retryPolicy.retriesAnswers = false
        // An outage is waited out by the engine (APNSReachability): one probe per backoff step, not four connections.
        configuration.retryPolicy.retriesUnreachable = false
        configuration.observer = observer
        configuration.logger = logger
        do {
            return try APNSPushClient(configuration: configuration)
        } catch {
            throw .configuration("cannot make an APNs client for app \(app.app.id): \(error)")
        }
    }

    /// A client for the app's channel management requests, at Apple's management host for the
    /// environment its endpoint belongs to, or at its ``ProviderApp/channelEndpoint`` (same host as its endpoint).
    ///
    /// - Throws: ``ProviderError`` when the app has no management endpoint or its credentials cannot be used.
    static func makeChannelClient(for app: StoredApp, secrets: SecretBox, logger: Logger) throws(ProviderError)
        -> APNSChannelClient
    {
        let credentials = try boundCredentials(of: app, secrets: secrets)
        let endpoint: APNSEndpoint
        if let channelEndpoint = app.app.channelEndpoint {
            try AppOperations.checkChannelEndpoint(channelEndpoint, endpoint: app.app.endpoint)
            do {
                endpoint = try APNSEndpoint(url: channelEndpoint, additionalTrustRootsPEM: app.caPEM)
            } catch {
                throw .configuration("app \(app.app.id) has a bad channelEndpoint \(channelEndpoint): \(error)")
            }
        } else if let host = URL(string: app.app.endpoint)?.host?.lowercased(),
            let environment = [APNSEnvironment.production, .development].first(where: { $0.host == host })
        {
            endpoint = APNSChannelClient.endpoint(for: environment)
        } else {
            throw .conflict(
                "app \(app.app.id) sends to \(app.app.endpoint), whose channel management endpoint is not known: set "
                    + "it (PATCH /v1/apps/\(app.app.id) {\"channelEndpoint\": \"https://HOST:PORT\"}, the gateway's "
                    + "--manage-port)")
        }
        do {
            var logger = logger
            logger[metadataKey: "app"] = "\(app.app.id)"
            return try APNSChannelClient(
                endpoint: endpoint, authentication: try credentials.clientAuthentication(), logger: logger)
        } catch {
            throw .configuration("cannot make a channel management client for app \(app.app.id): \(error)")
        }
    }

    /// The app's credentials, checked to be bound to its endpoint: they are never sent elsewhere.
    private static func boundCredentials(of app: StoredApp, secrets: SecretBox) throws(ProviderError)
        -> AppCredentials
    {
        let bound = try BoundCredentials.open(app.sealedCredentials, with: secrets)
        if let endpoint = bound.endpoint, endpoint != app.app.endpoint {
            throw .configuration(
                "app \(app.app.id)'s credentials were given for \(endpoint), not \(app.app.endpoint); they are never "
                    + "sent elsewhere: give the credentials again with the new endpoint")
        }
        return bound.credentials
    }
}

/// What a client made for a check reports to: nothing.
private struct Unobserved: APNSClientObserver {}
