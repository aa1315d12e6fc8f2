import APNSClient
import APNSCore
import HeraldSupport
import Prometheus
import ProviderStorage

/// The provider's Prometheus metrics, served at `/metrics`: the series of ``MetricSeries/all``, each declared there
/// once; sends by result, send latency, open APNs connections and (read at scrape time) the queue depth.
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
    /// Apps paused because APNs refused their credentials (read at scrape time).
    let credentialPausedApps: Gauge
    private let accepted: Counter

    init() {
        accepted = registry.makeCounter(
            descriptor: MetricSeries.sends.descriptor, labels: [("result", "accepted"), ("reason", "")])
        latency = registry.makeDurationHistogram(
            descriptor: MetricSeries.sendLatency.descriptor,
            buckets: [
                .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
                .milliseconds(500), .seconds(1), .seconds(5),
            ])
        connections = registry.makeGauge(descriptor: MetricSeries.apnsConnections.descriptor)
        queueDepth = registry.makeGauge(descriptor: MetricSeries.queueDepth.descriptor)
        unreachableApps = registry.makeGauge(descriptor: MetricSeries.apnsUnreachableApps.descriptor)
        credentialPausedApps = registry.makeGauge(descriptor: MetricSeries.credentialPausedApps.descriptor)
        notificationsCreated = registry.makeCounter(descriptor: MetricSeries.notifications.descriptor)
        deliveriesCancelled = registry.makeCounter(descriptor: MetricSeries.deliveriesCancelled.descriptor)
        deliveriesResent = registry.makeCounter(descriptor: MetricSeries.deliveriesResent.descriptor)
        registry.makeGauge(descriptor: MetricSeries.buildInfo.descriptor, labels: [("version", HeraldVersion.current)])
            .set(Double(1))
    }

    /// Adds `count` to `series` with these label values (one for each of its ``MetricSeries/labels``, in order).
    private func count(_ series: MetricSeries, _ values: String..., by count: Int = 1) {
        registry.makeCounter(descriptor: series.descriptor, labels: Array(zip(series.labels, values)))
            .increment(by: Int64(count))
    }

    /// Counts the rows the retention pruner deleted, by kind (`deliveries`, `traces`, `responses`, `notifications`).
    func pruned(_ kind: String, count: Int) {
        self.count(.prunedRows, kind, by: count)
    }

    func notificationFinished(_ result: APNSResult, latency: Duration) {
        self.latency.record(latency)
        switch result {
        case .accepted: accepted.increment()
        case .rejected(let rejection) where rejection.status == nil:
            // APNs never answered: not one of its rejections. `unreached`: no connection could be made (it waits in
            // the queue); `unanswered`: written, but no answer came.
            count(.sends, rejection.reason == .connectionFailed ? "unreached" : "unanswered", rejection.reason.rawValue)
        case .rejected(let rejection):
            count(.sends, "rejected", rejection.reason.rawValue)
        }
    }

    /// Counts an app this process paused because APNs refused its credentials with `reason`.
    func credentialPaused(reason: String) {
        count(.credentialPauses, reason)
    }

    /// Counts a check of an app's credentials (`POST /v1/apps/{id}/check`) by outcome.
    func credentialChecked(passed: Bool) {
        count(.credentialChecks, passed ? "passed" : "failed")
    }

    /// Counts deliveries cancelled with their notification (in the queue, or withheld by a worker and cancelled
    /// after its batch).
    func cancelled(_ count: Int) {
        deliveriesCancelled.increment(by: Int64(count))
    }

    /// Counts a webhook attempt by result: `sent` (2xx), `failed` (tried again later), `dead` (no attempt left).
    func webhookAttempt(result: String) {
        count(.webhookAttempts, result)
    }

    /// Counts a publishable-key request refused by one of ``PublicLimits`` (its name).
    func publicRefused(limit: String) {
        count(.publicLimited, limit.split(separator: " ").joined(separator: "_"))
    }

    /// Counts a request refused for who sent it: 401 (no or a wrong key) or 403 (a key that may not do it).
    func refused(status: Int) {
        count(.refusals, String(status))
    }

    /// Counts a failure the provider logged and went on from (``FailureReporter``).
    func failed(_ operation: String) {
        count(.failures, operation)
    }

    func connectionsChanged(open: Int) {
        connections.set(Double(open))
    }

    /// The text exposition format.
    func render() -> String { registry.emitToString() }

    /// The metrics in Prometheus' text format, as `/metrics` serves them, with the queue depth and the apps that
    /// cannot reach APNs read now. The shared queue's gauges (its depth, the apps paused for their credentials) come
    /// from one provider of those on the database (`sharedGauges`); the others say 0, so a `sum()` counts them once.
    func exposition(store: any ProviderStore, reachability: APNSReachability, sharedGauges: Bool) async -> String {
        let depth = sharedGauges ? (try? await store.queueDepth()) : 0
        if let depth { queueDepth.set(Double(depth)) }
        let apps = sharedGauges ? (try? await store.apps()) : []
        if let apps { credentialPausedApps.set(Double(apps.filter { $0.app.pauseReason != nil }.count)) }
        unreachableApps.set(Double(reachability.all.count))
        return render()
    }
}
