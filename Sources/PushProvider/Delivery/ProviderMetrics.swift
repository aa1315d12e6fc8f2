import APNSClient
import APNSCore
import Prometheus
import ProviderStorage

/// The provider's Prometheus metrics, served at `/metrics`: sends by result, send latency, open APNs connections and
/// (read at scrape time) the queue depth.
final class ProviderMetrics: APNSClientObserver {
    let registry = PrometheusCollectorRegistry()
    private let latency: DurationHistogram
    private let connections: Gauge
    let queueDepth: Gauge
    let notificationsCreated: Counter
    /// Deliveries cancelled with their notification, and sent again by a resend.
    let deliveriesCancelled: Counter
    let deliveriesResent: Counter
    /// Apps that cannot reach APNs now (read at scrape time).
    let unreachableApps: Gauge
    private static var sends: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", subsystem: "provider", metricName: "sends", unitName: "total",
            helpText: "Deliveries sent to APNs, by result and reason.")
    }
    private let accepted: Counter

    init() {
        accepted = registry.makeCounter(descriptor: Self.sends, labels: [("result", "accepted"), ("reason", "")])
        latency = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "send_latency", unitName: "seconds",
                helpText: "From a notification's first write to APNs' answer."),
            buckets: [
                .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
                .milliseconds(500), .seconds(1), .seconds(5),
            ])
        connections = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "apns_connections", unitName: "",
                helpText: "Open HTTP/2 connections to APNs."))
        queueDepth = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "queue_depth", unitName: "",
                helpText: "Deliveries waiting in the queue (on PostgreSQL, above \(exactQueueDepth) an estimate)."))
        unreachableApps = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "apns_unreachable_apps", unitName: "",
                helpText: "Apps whose connections to APNs cannot be made now (their notifications wait)."))
        notificationsCreated = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "notifications", unitName: "total",
                helpText: "Notifications accepted by the API."))
        deliveriesCancelled = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "deliveries_cancelled", unitName: "total",
                helpText: "Queued deliveries cancelled with their notification (never sent)."))
        deliveriesResent = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "deliveries_resent", unitName: "total",
                helpText: "Deliveries the provider had given up on, put back in the queue by a resend."))
    }

    /// Counts the rows the retention pruner deleted, by kind (`deliveries`, `traces`, `responses`, `notifications`).
    func pruned(_ kind: String, count: Int) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "pruned_rows", unitName: "total",
                helpText: "Rows deleted by the retention pruner, by kind."),
            labels: [("kind", kind)]
        ).increment(by: Int64(count))
    }

    func notificationFinished(_ result: APNSResult, latency: Duration) {
        self.latency.record(latency)
        switch result {
        case .accepted: accepted.increment()
        case .rejected(let rejection) where rejection.status == nil:
            // APNs never answered: not one of its rejections. `unreached`: no connection could be made (it waits in
            // the queue); `unanswered`: written, but no answer came.
            registry.makeCounter(
                descriptor: Self.sends,
                labels: [
                    ("result", rejection.reason == .connectionFailed ? "unreached" : "unanswered"),
                    ("reason", rejection.reason.rawValue),
                ]
            ).increment()
        case .rejected(let rejection):
            registry.makeCounter(
                descriptor: Self.sends, labels: [("result", "rejected"), ("reason", rejection.reason.rawValue)]
            ).increment()
        }
    }

    /// Counts a request refused for who sent it: 401 (no or a wrong key) or 403 (a key that may not do it).
    /// Counts deliveries cancelled with their notification (in the queue, or withheld by a worker and cancelled
    /// after its batch).
    func cancelled(_ count: Int) {
        deliveriesCancelled.increment(by: Int64(count))
    }

    /// Counts a webhook attempt by result: `sent` (2xx), `failed` (tried again later), `dead` (no attempt left).
    func webhookAttempt(result: String) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "webhook_attempts", unitName: "total",
                helpText: "Webhook POSTs by result: sent (2xx), failed (tried again later), dead (no attempt left)."),
            labels: [("result", result)]
        ).increment()
    }

    /// Counts a publishable-key request refused by one of ``PublicLimits`` (its name).
    func publicRefused(limit: String) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "public_limited", unitName: "total",
                helpText: "Publishable-key requests refused (429) by a limit, by limit."),
            labels: [("limit", limit.split(separator: " ").joined(separator: "_"))]
        ).increment()
    }

    func refused(status: Int) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "refusals", unitName: "total",
                helpText: "API requests refused for their credentials: 401 without a valid key, 403 not allowed."),
            labels: [("status", String(status))]
        ).increment()
    }

    /// Counts a failure the provider logged and went on from (``FailureReporter``).
    func failed(_ operation: String) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "failures", unitName: "total",
                helpText: "Failures the provider logged and went on from, by operation (a store, a webhook, ...)."),
            labels: [("operation", operation)]
        ).increment()
    }

    func connectionsChanged(open: Int) {
        connections.set(Double(open))
    }

    /// The text exposition format.
    func render() -> String { registry.emitToString() }

    /// The metrics in Prometheus' text format, as `/metrics` serves them, with the queue depth and the apps that
    /// cannot reach APNs read now.
    func exposition(store: any ProviderStore, reachability: APNSReachability) async -> String {
        if let depth = try? await store.queueDepth() { queueDepth.set(Double(depth)) }
        unreachableApps.set(Double(reachability.all.count))
        return render()
    }
}
