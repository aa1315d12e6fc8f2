import Crypto
package import Foundation
package import HeraldSupport
package import HeraldTime
import Logging
package import NIOSSL
package import ProviderStorage

extension PushProviderService {
    /// How `herald serve` runs: where it listens and keeps its data, its secrets, and the delivery workers' limits.
    package struct Configuration: Sendable {
        /// Where apps, devices and the delivery queue are kept.
        package var database: Database = .sqlite
        /// TLS for the API and the console (`herald serve --tls-cert --tls-key`); `nil` serves plain HTTP, for a
        /// loopback address or behind a TLS-terminating proxy.
        package var tls: TLSConfiguration?
        /// The address to listen on.
        package var host = "127.0.0.1"
        /// The port; 0 picks a free one.
        package var port = 8080
        /// Where the database, the master key and the admin token are kept (`DIR/provider/`).
        package var dataDirectory: URL
        /// The admin token; read from (or created in) `DIR/provider/admin-token` when `nil`.
        package var adminToken: String?
        /// The 32-byte key that seals credentials at rest; read from (or created in) `DIR/provider/master.key` when
        /// `nil`.
        package var masterKey: Data?
        /// Concurrent delivery workers.
        package var workers = 4
        /// Deliveries a worker leases at a time.
        package var batchSize = 5000
        /// The most HTTP/2 connections per app to APNs: another opens only while the open ones have no stream free.
        package var connectionsPerApp = 4
        /// How long a lease lasts before another worker (or this one, restarted) takes the delivery back.
        package var leaseDuration: TimeInterval = 30
        /// Endpoints besides Apple's hosts that an app's API key may point the app at (`--allow-endpoint`), such as a
        /// local gateway; only the admin token may set an endpoint outside this list.
        package var allowedEndpoints: [String] = []
        /// Hosts (`host` or `host:port`) on loopback, private or link-local addresses that webhooks may still reach
        /// (`--allow-webhook-host`).
        package var allowedWebhookHosts: [String] = []
        /// The API server's connection limits: idle 60 s, the first request head within 10 s, at most 1,000
        /// connections (`--max-connections`).
        package var httpLimits = HTTPServerLimits()
        /// The waits between a webhook event's attempts (the last one's failure makes it dead); `nil`: 10 attempts
        /// over about a day (``WebhookSender/Settings/retrySchedule``).
        package var webhookRetrySchedule: [Duration]? = nil
        /// How often the publishable key may be used, per client address and per app.
        package var publicLimits = PublicLimits()
        /// The reverse proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`); none by default, so
        /// the socket's address is the client's.
        package var trustedProxies = TrustedProxies()
        /// Where traces go (``HeraldTracer``): `nil`, the default, for none. `herald serve --otlp-endpoint` (or
        /// `OTEL_EXPORTER_OTLP_ENDPOINT`) sets swift-otel's exporter.
        package var tracer: HeraldTracer?
        /// Who may read `/metrics` (``MetricsAccess``): anyone by default; `herald serve` asks for a token unless
        /// `--public-metrics`.
        package var metricsAccess = MetricsAccess.open
        /// How often idle workers look for deliveries that became due (scheduled or retried); new notifications wake
        /// them at once.
        package var pollInterval: Duration = .milliseconds(250)

        /// How long records are kept for apps that set no retention of their own (`--retention-days`,
        /// `--trace-retention-days`, `--response-retention-days`).
        package var retention = RetentionDays.standard
        /// How often the retention pruner runs.
        package var pruneInterval: Duration = .seconds(600)

        /// The provider's time, what it reads and how its timers wait; tests give a `ManualClock` and move it instead
        /// of waiting.
        package var clock: any WallClock = SystemWallClock()

        package init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
        }

        package var providerDirectory: URL { dataDirectory.appendingPathComponent("provider") }
    }

    /// The database behind the provider.
    package enum Database: Sendable, Hashable {
        /// One SQLite file under the data directory (`DIR/provider/provider.sqlite`); one process per file.
        case sqlite
        /// A PostgreSQL database, `postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=...&schema=...]`; any
        /// number of provider processes may share it.
        case postgres(url: String)

        /// Reads `sqlite` or a `postgres://` URL, as `herald serve --database` takes it.
        ///
        /// - Throws: ``ProviderError/configuration(_:)`` for anything else.
        package init(parsing text: String) throws(ProviderError) {
            if text == "sqlite" {
                self = .sqlite
            } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
                _ = try PostgresDatabaseURL(text)
                self = .postgres(url: text)
            } else {
                throw .configuration(
                    "--database \"\(text)\" is not known: give sqlite or a URL such as "
                        + "postgres://herald:secret@localhost:5432/herald")
            }
        }
    }
}

extension PushProviderService.Configuration {
    /// The delivery engine's settings from these.
    var engineSettings: DeliveryEngine.Settings {
        var settings = DeliveryEngine.Settings()
        settings.workers = workers
        settings.batchSize = batchSize
        settings.leaseDuration = leaseDuration
        settings.pollInterval = pollInterval
        settings.clock = clock
        return settings
    }

    /// Opens ``database``: SQLite's file in ``providerDirectory``, or PostgreSQL at its URL.
    ///
    /// - Throws: ``ProviderError`` when the database cannot be opened or upgraded.
    func openStore(messageKey: SymmetricKey, logger: Logger) async throws(ProviderError) -> any ProviderStore {
        switch database {
        case .sqlite:
            try SQLiteStore(
                path: providerDirectory.appendingPathComponent("provider.sqlite").path, messageKey: messageKey)
        case .postgres(let url): try await PostgresStore(url: url, logger: logger, messageKey: messageKey)
        }
    }
}
