import APNSCore
import AsyncHTTPClient
import Foundation
import HeraldSupport
import HeraldTime
import Logging
import NIOCore
import NIOHTTP1
import ProviderStorage
import Synchronization

/// Sends the webhook outbox (``WebhookOutbox``): leases due events, POSTs each to its app's `webhookURL` signed as
/// the Standard Webhooks specification says (``WebhookSignature``), deletes it on a 2xx, and otherwise tries it again
/// later on ``Settings/retrySchedule`` (with jitter), keeping it as dead after the last attempt. Several providers
/// on one database share the outbox as they share the delivery queue.
///
/// What it may hold open is bounded whatever the receivers do: at most ``Settings/endpointsAtOnce`` endpoints are
/// served at once, each over at most ``Settings/connectionsPerEndpoint`` connections. A receiver that fails is left
/// alone for its event's next wait; its other leased events are given back without an attempt.
///
/// Before connecting, the URL's host is looked up and checked against ``policy`` (public addresses only, unless
/// allowed), and the requests connect to the address checked, so a name that later points inside the provider's
/// network is not followed; no redirect is followed.
struct WebhookSender: Sendable {
    struct Settings: Sendable {
        /// Events leased at a time.
        var batch = 64
        /// How long a lease lasts: past it another sender may take the event.
        var leaseFor: TimeInterval = 120
        /// Endpoints served at once.
        var endpointsAtOnce = 16
        /// Requests (and connections) to one endpoint at once.
        var connectionsPerEndpoint = 4
        /// The waits before the 2nd, 3rd, ... attempt: 10 attempts over about a day (the specification's example
        /// schedule, widened); each wait is drawn between 80% and 120% of its value so retries spread.
        var retrySchedule: [Duration] = [
            .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(1800), .seconds(3600), .seconds(7200),
            .seconds(4 * 3600), .seconds(10 * 3600),
        ]
        /// How long the sender sleeps when nothing is due (a new event wakes it at once).
        var idle: Duration = .seconds(1)
        /// A connection's and an answer's time limits.
        var connectTimeout: TimeAmount = .seconds(10)
        var readTimeout: TimeAmount = .seconds(30)
        /// How long the signature of a rotated-out secret is still sent beside the new one's.
        var rotationOverlap: TimeInterval = 24 * 3600
    }

    let store: any WebhookOutbox
    let secrets: SecretBox
    let failures: FailureReporter
    let policy: OutboundPolicy
    let metrics: ProviderMetrics
    var settings = Settings()
    /// What lease times and retries are measured on.
    var clock: any WallClock = SystemWallClock()
    /// Told when an event is written; the sender wakes on it.
    let signal: WorkSignal
    /// The provider's record of changes, told after each pass that sent, retried or gave up on an event.
    let changes: WorkSignal
    /// This sender's name on its leases.
    let owner = "webhooks-" + UUID().uuidString.prefix(8).lowercased()

    /// The events this sender leased and has not finished (sent, failed or given back).
    let holding = HeldEvents()
    /// The endpoints being served now: their other events are not leased until they finish.
    let serving = ServedEndpoints()
    /// Each endpoint's HTTP client, kept between its turns.
    let clients = EndpointClients()

    /// Sends until cancelled, then gives back what it still holds, so another provider (or the next start) sends it
    /// at once instead of after the lease runs out. Each endpoint is served on its own, so a receiver that hangs
    /// holds only its own events, never the next lease for other endpoints.
    func run() async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let seen = signal.count
                if await startDue(in: &group) == 0 { await signal.wait(after: seen, upTo: settings.idle) }
            }
        }
        await clients.closeAll()
        let left = holding.takeAll()
        guard !left.isEmpty else { return }
        // An unstructured task is not cancelled with this one: the write goes through while the provider stops.
        let (store, now) = (store, clock.currentDate)
        await Task { try? await store.releaseWebhooks(ids: left, dueAt: now) }.value
    }

    /// Leases the due events once and sends them, waiting until they are sent; how many were leased.
    @discardableResult
    func sendDue() async -> Int {
        let leased = await withDiscardingTaskGroup { group in await startDue(in: &group) }
        await clients.closeAll()
        return leased
    }

    /// Leases the due events of endpoints not being served and starts serving each of their endpoints in `group`
    /// (at most ``Settings/endpointsAtOnce`` in all); how many were leased. An endpoint that finishes wakes the
    /// sender (``signal``), so its next events are leased at once.
    private func startDue(in group: inout DiscardingTaskGroup) async -> Int {
        let busy = serving.current
        let free = settings.endpointsAtOnce - busy.count
        guard free > 0 else { return 0 }
        let events: [OutboxEvent]
        let now = clock.currentDate
        do {
            events = try await store.leaseWebhooks(
                owner: owner, limit: settings.batch, now: now, leaseFor: settings.leaseFor, skipping: busy)
        } catch {
            failures.report(.webhook, "the webhook outbox could not be read", metadata: ["why": "\(error)"])
            try? await clock.sleep(for: settings.idle)
            return 0
        }
        guard !events.isEmpty else { return 0 }
        holding.add(events.map(\.id))
        let byEndpoint = Dictionary(grouping: events, by: \.url).sorted { $0.key < $1.key }
        for (url, events) in byEndpoint.prefix(free) {
            serving.insert(url)
            group.addTask {
                await self.send(events, to: url)
                self.serving.remove(url)
                self.changes.notify()
                self.signal.notify()
            }
        }
        // More endpoints due than may be served at once: theirs wait for one to finish.
        let waiting = byEndpoint.dropFirst(free).flatMap(\.value).map(\.id)
        if !waiting.isEmpty {
            try? await store.releaseWebhooks(ids: waiting, dueAt: now)
            holding.remove(waiting)
        }
        return events.count
    }

    /// Sends one endpoint's events, one or a batch a request (``WebhookMessage``), at most
    /// ``Settings/connectionsPerEndpoint`` requests at once; after a failure, the ones not yet tried are given back for
    /// later.
    private func send(_ events: [OutboxEvent], to text: String) async {
        let now = clock.currentDate
        guard let url = URL(string: text) else {
            for event in events { await failed(event, "the webhook URL \(text) does not parse", final: true) }
            return
        }
        let target: OutboundTarget
        do throws(OutboundRefusal) {
            target = try await policy.target(for: url)
        } catch {
            for event in events { await failed(event, "refused: \(error.message)", final: false) }
            return
        }
        let client = clients.client(for: text, at: target, busy: serving.current) { makeClient(target) }
        var next = WebhookMessage.messages(events)[...]
        var stopped = false
        while !next.isEmpty, !stopped, !Task.isCancelled {
            let wave = next.prefix(settings.connectionsPerEndpoint)
            next = next.dropFirst(wave.count)
            let results = await withTaskGroup(of: Bool.self) { group in
                for message in wave { group.addTask { await self.attempt(message, url: url, client: client) } }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            stopped = results.contains(false)
        }
        // Cancelled (the provider stops): what is left stays held, and ``run()`` gives it back as it ends.
        let left = next.flatMap(\.events).map(\.id)
        if !left.isEmpty, !Task.isCancelled {
            try? await store.releaseWebhooks(ids: left, dueAt: now.addingTimeInterval(5))
            holding.remove(left)
        }
    }

    /// One POST of `message`; whether the receiver answered 2xx (its events are then deleted; otherwise each one's
    /// failure is recorded).
    private func attempt(_ message: WebhookMessage, url: URL, client: HTTPClient) async -> Bool {
        guard let signing = await signingSecrets(message.appID) else {
            for event in message.events {
                await failed(
                    event, "the app's webhook secret could not be read (the provider's log says why)", final: false)
            }
            return false
        }
        let timestamp = Int(clock.currentDate.timeIntervalSince1970)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Herald-Webhooks")
        request.headers.add(name: "webhook-id", value: message.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(
            name: "webhook-signature",
            value: WebhookSignature.header(
                id: message.id, timestamp: timestamp, body: message.body, secrets: signing))
        request.body = .bytes(ByteBuffer(bytes: message.body))
        let problem: String
        do {
            let response = try await client.execute(request, timeout: settings.readTimeout)
            _ = try? await response.body.collect(upTo: 1 << 16)
            if (200..<300).contains(response.status.code) {
                let ids = message.events.map(\.id)
                do {
                    try await store.webhookSent(ids: ids)
                    holding.remove(ids)
                } catch {
                    failures.report(
                        .webhook, "webhook events were sent but not marked sent; they will be sent again",
                        metadata: ["webhook-id": "\(message.id)", "why": "\(error)"])
                }
                for _ in ids { metrics.webhookAttempt(result: "sent") }
                return true
            }
            problem = "the receiver answered \(response.status.code)"
        } catch {
            // The provider stops: not an attempt of the receiver's; the event is given back as the sender ends.
            if Task.isCancelled { return false }
            problem = "no answer: \(error)"
        }
        for event in message.events { await failed(event, problem, final: false) }
        return false
    }

    /// Records a failed attempt: tried again after its next wait, or dead after the last (or when `final`).
    private func failed(_ event: OutboxEvent, _ problem: String, final: Bool) async {
        let attempt = event.attempts + 1
        let now = clock.currentDate
        let wait =
            final
            ? nil
            : settings.retrySchedule.indices.contains(attempt - 1)
                ? settings.retrySchedule[attempt - 1] : nil
        let retryAt = wait.map { now.adding($0 * Double.random(in: 0.8...1.2)) }
        do {
            try await store.webhookFailed(id: event.id, error: problem, retryAt: retryAt, at: now)
            holding.remove([event.id])
        } catch {
            failures.report(.webhook, "a webhook attempt could not be recorded", metadata: ["why": "\(error)"])
        }
        metrics.webhookAttempt(result: retryAt == nil ? "dead" : "failed")
        if retryAt == nil {
            failures.report(
                .webhook,
                "a webhook event is dead after \(attempt) attempts; retry it with POST /v1/apps/{id}/webhooks/retry",
                metadata: ["url": "\(event.url)", "webhook-id": "\(event.eventID)", "why": "\(problem)"])
        }
    }

    /// The secrets an event is signed with: the app's newest, and the one before it while its overlap lasts; `nil`
    /// when they cannot be read. An app without one gets one now (its server gets one it can read with
    /// `POST /v1/apps/{id}/webhook-secret`, which makes another and keeps this one for the overlap).
    private func signingSecrets(_ appID: String) async -> [String]? {
        do {
            var stored = try await store.webhookSecrets(appID: appID)
            if stored.isEmpty {
                let secret = WebhookSignature.newSecret()
                try await store.addWebhookSecret(
                    appID: appID, sealed: secrets.seal(Data(secret.utf8)).base64EncodedString(),
                    at: clock.currentDate)
                stored = try await store.webhookSecrets(appID: appID)
            }
            let now = clock.currentDate
            let inUse = stored.enumerated().filter { index, _ in
                index == 0 || now.timeIntervalSince(stored[index - 1].createdAt) < settings.rotationOverlap
            }
            return try inUse.map { _, secret in
                guard let sealed = Data(base64Encoded: secret.sealed) else {
                    throw ProviderError.configuration("a webhook secret of app \(appID) is not base64")
                }
                return String(decoding: try secrets.open(sealed), as: UTF8.self)
            }
        } catch {
            failures.report(
                .webhook, "the webhook secret could not be read; the event waits",
                metadata: ["app": "\(appID)", "why": "\(error)"])
            return nil
        }
    }

    /// A client for one endpoint: connecting only to the address the policy checked, following no redirect, at most
    /// ``Settings/connectionsPerEndpoint`` connections.
    private func makeClient(_ target: OutboundTarget) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: settings.connectTimeout, read: settings.readTimeout))
        configuration.dnsOverride = target.dnsOverride
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = settings.connectionsPerEndpoint
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
