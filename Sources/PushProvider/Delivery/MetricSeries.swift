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
        name: "sends", unit: "total", kind: .counter, help: "Deliveries sent to APNs, by result and reason.",
        labels: ["result", "reason"])
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

    static let buildInfo = MetricSeries(
        name: "build_info", unit: "", kind: .gauge, help: "Always 1; its label is the provider's version.",
        labels: ["version"])

    /// Every series, in the order docs/production.md lists them.
    static let all: [MetricSeries] = [
        sends, sendLatency, queueDepth, apnsConnections, failures, apnsUnreachableApps, prunedRows, deliveriesCancelled,
        deliveriesResent, publicLimited, notifications, webhookAttempts, refusals, credentialPauses,
        credentialPausedApps, credentialChecks, buildInfo,
    ]
}
