import APNSCore
package import Foundation
import HeraldSupport
import HeraldTime
import Hummingbird
import HummingbirdTLS
package import Logging
package import ProviderStorage
import ServiceLifecycle
import Synchronization

/// The provider service (`herald serve`): the JSON API under `/v1`, the durable delivery queue and its workers, the
/// daily scheduler, `/healthz` and `/metrics`. See docs/api.md.
///
/// ```swift
/// let provider = try await PushProviderService(configuration: .init(dataDirectory: URL(fileURLWithPath: ".herald")))
/// try await provider.run { port in print("listening on \(port)") }
/// ```
package final class PushProviderService: Sendable {
    package let configuration: Configuration
    /// The token that may create apps and act on every app.
    package let adminToken: String
    /// Whether this start made the admin token (so it is shown once, now); `false` when it was read or given.
    package let adminTokenCreated: Bool
    /// The file the admin token is kept in, unless it was given in the configuration.
    package var adminTokenPath: URL { configuration.providerDirectory.appendingPathComponent("admin-token") }
    let store: any ProviderStore
    let secrets: SecretBox
    let metrics = ProviderMetrics()
    /// The buckets of ``Configuration/publicLimits``.
    let publicLimits: PublicLimitBuckets
    /// Notified at every change ``changesRecorded`` counts.
    let changes: WorkSignal
    let engine: DeliveryEngine
    let clients: ClientRegistry
    let webhooks: WebhookSender
    /// The apps of the publishable keys used in the last second.
    let publishableKeys = PublishableKeyCache()
    /// Receipts written a batch at a time.
    let receipts: ReceiptBatcher
    /// Where webhooks may go.
    let webhookPolicy: OutboundPolicy
    let logger: Logger
    /// Logs and counts what the provider could not do and went on from.
    let failures: FailureReporter
    /// The plugins ``run(plugins:onListening:)`` serves; they may vouch for a request's key.
    let plugins = Mutex<[any ProviderPlugin]>([])
    /// Queues each daily notification's next occurrences.
    let scheduler: DailyScheduler
    /// Making, changing, pausing and deleting apps.
    package let apps: AppOperations
    /// Creating, reporting, cancelling, changing and resending notifications.
    package let notifications: NotificationOperations

    /// Opens the database and loads or creates the secrets.
    ///
    /// - Throws: ``ProviderError`` when the data directory, database or master key cannot be used.
    package init(configuration: Configuration, logger: Logger = Logger(label: "herald-provider"))
        async throws(ProviderError)
    {
        self.configuration = configuration
        self.logger = logger
        let clock = configuration.clock
        changes = WorkSignal(sleep: { try await clock.sleep(for: $0) })
        let directory = configuration.providerDirectory
        if let key = configuration.masterKey {
            secrets = try SecretBox(masterKey: key)
        } else {
            secrets = try SecretBox.loadOrCreate(at: directory.appendingPathComponent("master.key"))
        }
        store = try await configuration.openStore(messageKey: secrets.derivedKey(for: "herald apns-id"), logger: logger)
        store.observation.observe(with: metrics)
        if let token = configuration.adminToken {
            (adminToken, adminTokenCreated) = (token, false)
        } else {
            (adminToken, adminTokenCreated) = try await AdminToken.loadOrCreate(
                in: directory, store: store, secrets: secrets)
        }
        clients = ClientRegistry(
            secrets: secrets, observer: metrics, connectionsPerApp: configuration.connectionsPerApp, logger: logger)
        failures = FailureReporter(logger: logger, metrics: metrics)
        engine = DeliveryEngine(
            queue: store, senders: clients, settings: configuration.engineSettings, failures: failures,
            changes: changes, tracer: configuration.tracer)
        webhookPolicy = OutboundPolicy(
            allowedHosts: configuration.allowedWebhookHosts, allowOption: "herald serve --allow-webhook-host")
        var webhookSettings = WebhookSender.Settings()
        if let schedule = configuration.webhookRetrySchedule { webhookSettings.retrySchedule = schedule }
        webhooks = WebhookSender(
            store: store, secrets: secrets, failures: failures, policy: webhookPolicy, metrics: metrics,
            settings: webhookSettings, clock: configuration.clock,
            signal: WorkSignal(sleep: { try await clock.sleep(for: $0) }), changes: changes)
        receipts = ReceiptBatcher(store: store, writers: store.receiptWriters)
        publicLimits = PublicLimitBuckets(configuration.publicLimits) { [engine] in
            engine.liveProviders.load(ordering: .relaxed)
        }
        scheduler = DailyScheduler(store: store, engine: engine, failures: failures, clock: configuration.clock)
        apps = AppOperations(
            store: store, clock: configuration.clock, secrets: secrets,
            allowedEndpoints: configuration.allowedEndpoints,
            webhookPolicy: webhookPolicy, engine: engine, publishableKeys: publishableKeys, changes: changes,
            logger: logger)
        notifications = NotificationOperations(
            store: store, clock: configuration.clock, engine: engine, scheduler: scheduler, metrics: metrics,
            changes: changes, logger: logger, tracer: configuration.tracer)
    }

    /// How many changes this provider has recorded since it started: a notification queued (by the API or the daily
    /// scheduler), a batch of APNs' answers, a device registered, changed or deleted, a device's report, a dead
    /// provider's leases taken back. With ``waitForChanges(after:upTo:)``, the console's live views, a program
    /// embedding the provider, or a test read what they show again when it may have changed, instead of polling.
    package var changesRecorded: Int { changes.count }

    /// Returns once this provider records a change after the `seen`th (at once if it already has), after `timeout`,
    /// or when the task is cancelled.
    package func waitForChanges(after seen: Int, upTo timeout: Duration) async {
        await changes.wait(after: seen, upTo: timeout)
    }

    /// The provider's time (``Configuration/clock``).
    package func now() -> Date { configuration.clock.currentDate }

    /// Serves the API and runs the workers until the task is cancelled; then stops taking requests, lets the
    /// deliveries in flight finish, records them, and releases any lease not sent. The parts run as the services of
    /// one `ServiceGroup` (``services(plugins:onListening:onShutdown:)``); a command runs them in its own group.
    ///
    /// - Parameters:
    ///   - plugins: modules served beside the API, such as the console.
    ///   - onListening: called with the bound port once the API accepts connections.
    /// - Throws: when the server cannot bind.
    package func run(
        plugins: [any ProviderPlugin] = [], onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        var quiet = logger
        quiet.logLevel = .critical
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: try services(plugins: plugins, onListening: onListening), logger: quiet))
        // Unstructured, so cancelling this task shuts the group down gracefully instead of cutting it off.
        let running = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await running.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}
