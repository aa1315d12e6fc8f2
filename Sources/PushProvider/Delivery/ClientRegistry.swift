import APNSClient
import Foundation

/// One `APNSClient` per app, made on first use from its stored credentials and remade when the app changes.
actor ClientRegistry {
    private var clients: [String: (version: Date, client: APNSClient)] = [:]
    private let secrets: SecretBox
    private let observer: ProviderMetrics
    private let connectionsPerApp: Int

    init(secrets: SecretBox, observer: ProviderMetrics, connectionsPerApp: Int) {
        self.secrets = secrets
        self.observer = observer
        self.connectionsPerApp = connectionsPerApp
    }

    /// The client for `app`.
    ///
    /// - Throws: ``ProviderError`` when its credentials cannot be opened or used.
    func client(for app: StoredApp) throws(ProviderError) -> APNSClient {
        if let current = clients[app.app.id], current.version == app.app.updatedAt { return current.client }
        let client = try Self.makeClient(
            for: app, secrets: secrets, observer: observer, connections: connectionsPerApp)
        if let old = clients[app.app.id]?.client { Task { await old.shutdown() } }
        clients[app.app.id] = (app.app.updatedAt, client)
        return client
    }

    /// Waits for every client's notifications to end, then closes their connections.
    func shutdown() async {
        for (_, entry) in clients { await entry.client.shutdown() }
        clients = [:]
    }

    static func makeClient(for app: StoredApp, secrets: SecretBox, observer: ProviderMetrics, connections: Int)
        throws(ProviderError) -> APNSClient
    {
        let bound = try BoundCredentials.open(app.sealedCredentials, with: secrets)
        if let endpoint = bound.endpoint, endpoint != app.app.endpoint {
            throw .configuration(
                "app \(app.app.id)'s credentials were given for \(endpoint), not \(app.app.endpoint); they are never "
                    + "sent elsewhere: give the credentials again with the new endpoint")
        }
        let credentials = bound.credentials
        let endpoint: APNSEndpoint
        do {
            endpoint = try APNSEndpoint(url: app.app.endpoint, additionalTrustRootsPEM: app.caPEM)
        } catch {
            throw .configuration("app \(app.app.id) has a bad endpoint \(app.app.endpoint): \(error)")
        }
        var configuration = APNSClient.Configuration(
            endpoint: endpoint, authentication: try credentials.clientAuthentication())
        configuration.maximumConnections = connections
        configuration.observer = observer
        do {
            return try APNSClient(configuration: configuration)
        } catch {
            throw .configuration("cannot make an APNs client for app \(app.app.id): \(error)")
        }
    }
}
