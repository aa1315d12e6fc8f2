import Prometheus
import ProviderStorage

/// One series the provider exports at `/metrics`, declared once: its name (after `herald_provider_`), unit, help and
/// label names. ``all`` is the table docs/production.md's list is tested against.
struct MetricSeries: Sendable {
    enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    let name: String
    let unit: String
    let kind: Kind
    let help: String
    let labels: [String]

    /// The name as exported: `herald_provider_<name>[_<unit>]`.
    var fullName: String { ["herald", "provider", name, unit].filter { !$0.isEmpty }.joined(separator: "_") }

    var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", subsystem: "provider", metricName: name, unitName: unit, helpText: help)
    }

    static let sends = MetricSeries(
        name: "sends", unit: "total", kind: .counter,
        help: "Deliveries APNs answered (or left unanswered), by result, APNs' reason, push type and priority.",
        labels: ["result", "reason", "push_type", "priority"])
    static let sendLatency = MetricSeries(
        name: "send_latency", unit: "seconds", kind: .histogram,
        help: "From a notification's first write to APNs' answer.", labels: [])
    static let apnsConnections = MetricSeries(
        name: "apns_connections", unit: "", kind: .gauge, help: "Open HTTP/2 connections to APNs.", labels: [])
    static let queueDepth = MetricSeries(
        name: "queue_depth", unit: "", kind: .gauge,
        help: "Deliveries waiting in the queue (on PostgreSQL, above \(exactQueueDepth) an estimate).", labels: [])
    static let apnsUnreachableApps = MetricSeries(
        name: "apns_unreachable_apps", unit: "", kind: .gauge,
        help: "Apps whose connections to APNs cannot be made now (their notifications wait).", labels: [])
    static let notifications = MetricSeries(
        name: "notifications", unit: "total", kind: .counter, help: "Notifications accepted by the API.", labels: [])
    static let deliveriesCancelled = MetricSeries(
        name: "deliveries_cancelled", unit: "total", kind: .counter,
        help: "Queued deliveries cancelled with their notification (never sent).", labels: [])
    static let deliveriesResent = MetricSeries(
        name: "deliveries_resent", unit: "total", kind: .counter,
        help: "Deliveries the provider had given up on, put back in the queue by a resend.", labels: [])
    static let prunedRows = MetricSeries(
        name: "pruned_rows", unit: "total", kind: .counter, help: "Rows deleted by the retention pruner, by kind.",
        labels: ["kind"])
    static let webhookAttempts = MetricSeries(
        name: "webhook_attempts", unit: "total", kind: .counter,
        help: "Webhook POSTs by result: sent (2xx), failed (tried again later), dead (no attempt left).",
        labels: ["result"])
    static let publicLimited = MetricSeries(
        name: "public_limited", unit: "total", kind: .counter,
        help: "Publishable-key requests refused (429) by a limit, by limit.", labels: ["limit"])
    static let refusals = MetricSeries(
        name: "refusals", unit: "total", kind: .counter,
        help: "API requests refused for their credentials: 401 without a valid key, 403 not allowed.",
        labels: ["status"])
    static let failures = MetricSeries(
        name: "failures", unit: "total", kind: .counter,
        help: "Failures the provider logged and went on from, by operation (a store, a webhook, ...).",
        labels: ["operation"])

    static let credentialPauses = MetricSeries(
        name: "credential_pauses", unit: "total", kind: .counter,
        help: "Apps paused because APNs refused their credentials or topic, by APNs' reason.", labels: ["reason"])
    static let credentialPausedApps = MetricSeries(
        name: "credential_paused_apps", unit: "", kind: .gauge,
        help: "Apps paused now because APNs refused their credentials (their notifications wait).", labels: [])

    static let credentialChecks = MetricSeries(
        name: "credential_checks", unit: "total", kind: .counter,
        help: "Credential checks of apps (herald doctor --app, herald apps create), by outcome: passed or failed.",
        labels: ["outcome"])

    static let apnsConnectFailures = MetricSeries(
        name: "apns_connect_failures", unit: "total", kind: .counter,
        help: "Connections to APNs that could not be made (each attempt once; the deliveries wait, none is sent).",
        labels: [])
    static let apnsInFlight = MetricSeries(
        name: "apns_in_flight", unit: "", kind: .gauge,
        help: "Notifications handed to the APNs clients and not answered yet (on their streams, or waiting for one).",
        labels: [])
    static let apnsOutages = MetricSeries(
        name: "apns_outages", unit: "total", kind: .counter,
        help: "Times an app's connections to APNs stopped being made (each outage once, however long).", labels: [])

    static let httpRequests = MetricSeries(
        name: "http_requests", unit: "total", kind: .counter,
        help: "API and console requests answered, by route template, method and status.",
        labels: ["route", "method", "status"])
    static let httpRequestDuration = MetricSeries(
        name: "http_request_duration", unit: "seconds", kind: .histogram,
        help: "From a request's arrival to its answer's head, by route template and method.",
        labels: ["route", "method"])

    static let queueLeased = MetricSeries(
        name: "queue_leased", unit: "", kind: .gauge, help: "Deliveries leased by a worker now (being sent).",
        labels: [])
    static let queueOldestDueAge = MetricSeries(
        name: "queue_oldest_due_age", unit: "seconds", kind: .gauge,
        help: "How long the oldest delivery that is due and not leased has been due; 0 when none is.", labels: [])
    static let leaseTakeovers = MetricSeries(
        name: "lease_takeovers", unit: "total", kind: .counter,
        help: "Leased deliveries put back in the queue: expired (a worker died) or provider_stopped (no heartbeat).",
        labels: ["cause"])

    static let receipts = MetricSeries(
        name: "receipts", unit: "total", kind: .counter,
        help: "Devices' receipts recorded, by event and whether it repeated one already recorded.",
        labels: ["event", "outcome"])
    static let receiptsRefused = MetricSeries(
        name: "receipts_refused", unit: "total", kind: .counter,
        help: "Devices' receipts refused, by cause: invalid, unknown_delivery, unauthorized.", labels: ["cause"])

    static let webhookQueuePending = MetricSeries(
        name: "webhook_queue_pending", unit: "", kind: .gauge, help: "Webhook events waiting for an attempt.",
        labels: [])
    static let webhookQueueDead = MetricSeries(
        name: "webhook_queue_dead", unit: "", kind: .gauge,
        help: "Webhook events past their last attempt (dead letters), until resent or pruned.", labels: [])
    static let webhookQueueOldestAge = MetricSeries(
        name: "webhook_queue_oldest_age", unit: "seconds", kind: .gauge,
        help: "Age of the oldest webhook event waiting for an attempt; 0 when none waits.", labels: [])

    static let databaseStatementDuration = MetricSeries(
        name: "database_statement_duration", unit: "seconds", kind: .histogram,
        help: "Database work by the store's operation (lease, record, ...), from asking to the answer.",
        labels: ["operation"])
    static let databaseErrors = MetricSeries(
        name: "database_errors", unit: "total", kind: .counter, help: "Database work that failed, by operation.",
        labels: ["operation"])
    static let databaseConnectionWait = MetricSeries(
        name: "database_connection_wait", unit: "seconds", kind: .histogram,
        help: "PostgreSQL only: how long work waited for a connection from the pool.", labels: [])

    static let retentionLastPass = MetricSeries(
        name: "retention_last_pass", unit: "timestamp_seconds", kind: .gauge,
        help: "When the retention pruner last finished a pass (Unix time); 0 before the first.", labels: [])

    static let buildInfo = MetricSeries(
        name: "build_info", unit: "", kind: .gauge, help: "Always 1; its label is the provider's version.",
        labels: ["version"])

    /// Every series, in the order docs/production.md lists them.
    static let all: [MetricSeries] = [
        sends, sendLatency, queueDepth, apnsConnections, failures, apnsUnreachableApps, prunedRows, deliveriesCancelled,
        deliveriesResent, publicLimited, notifications, webhookAttempts, refusals, credentialPauses,
        credentialPausedApps, credentialChecks, apnsConnectFailures, apnsOutages, apnsInFlight, httpRequests,
        httpRequestDuration,
        queueLeased, queueOldestDueAge, leaseTakeovers, receipts, receiptsRefused, webhookQueuePending,
        webhookQueueDead, webhookQueueOldestAge, databaseStatementDuration, databaseErrors, databaseConnectionWait,
        retentionLastPass, buildInfo,
    ]
}
