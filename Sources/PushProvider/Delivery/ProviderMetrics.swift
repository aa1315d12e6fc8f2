import APNSClient
import APNSCore
import Foundation
import HTTPTypes
import HeraldSupport
import Prometheus
import ProviderStorage
import Synchronization

/// The provider's Prometheus metrics, served at `/metrics`: the series of ``MetricSeries/all``, each declared there
/// once. Every label takes its values from a bounded set (a route template, a known APNs reason, a push type): never a
/// token, a user, an apns-id or a notification, so the number of series does not grow with the traffic.
final class ProviderMetrics: APNSClientObserver, StoreObserver {
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
    private let connectFailures: Counter
    private let connectionWait: DurationHistogram
    /// The labelled counters and histograms used so far, by series name and label values: the registry's lookup
    /// (a lock, the labels checked, a dictionary of strings) is made once per series, not once per request.
    private let counters = Mutex<[[String]: Counter]>([:])
    private let histograms = Mutex<[[String]: DurationHistogram]>([:])

    /// The buckets of every duration histogram: from a local APNs' answer to a slow database's.
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
        .milliseconds(500), .seconds(1), .seconds(5), .seconds(10),
    ]

    init() {
        latency = registry.makeDurationHistogram(
            descriptor: MetricSeries.sendLatency.descriptor, buckets: Self.durationBuckets)
        connections = registry.makeGauge(descriptor: MetricSeries.apnsConnections.descriptor)
        queueDepth = registry.makeGauge(descriptor: MetricSeries.queueDepth.descriptor)
        unreachableApps = registry.makeGauge(descriptor: MetricSeries.apnsUnreachableApps.descriptor)
        credentialPausedApps = registry.makeGauge(descriptor: MetricSeries.credentialPausedApps.descriptor)
        notificationsCreated = registry.makeCounter(descriptor: MetricSeries.notifications.descriptor)
        deliveriesCancelled = registry.makeCounter(descriptor: MetricSeries.deliveriesCancelled.descriptor)
        deliveriesResent = registry.makeCounter(descriptor: MetricSeries.deliveriesResent.descriptor)
        connectFailures = registry.makeCounter(descriptor: MetricSeries.apnsConnectFailures.descriptor)
        connectionWait = registry.makeDurationHistogram(
            descriptor: MetricSeries.databaseConnectionWait.descriptor, buckets: Self.durationBuckets)
        registry.makeCounter(descriptor: MetricSeries.apnsOutages.descriptor).increment(by: Int64(0))
        registry.makeGauge(descriptor: MetricSeries.buildInfo.descriptor, labels: [("version", HeraldVersion.current)])
            .set(Double(1))
    }

    /// Adds `count` to `series` with these label values (one for each of its ``MetricSeries/labels``, in order).
    func count(_ series: MetricSeries, _ values: String..., by count: Int = 1) {
        counter(series, values).increment(by: Int64(count))
    }

    /// The counter of `series` with these label values, made on first use.
    private func counter(_ series: MetricSeries, _ values: [String]) -> Counter {
        Self.cached(in: counters, series, values) { labels in
            registry.makeCounter(descriptor: series.descriptor, labels: labels)
        }
    }

    /// The metric of `series` with these label values from `cache`, made with its labels on first use.
    private static func cached<Metric>(
        in cache: borrowing Mutex<[[String]: Metric]>, _ series: MetricSeries, _ values: [String],
        make: ([(String, String)]) -> Metric
    ) -> Metric {
        cache.withLock { cache in
            let key = [series.name] + values
            if let metric = cache[key] { return metric }
            let metric = make(Array(zip(series.labels, values)))
            cache[key] = metric
            return metric
        }
    }

    /// Sets the gauge `series` (a series without labels).
    func set(_ series: MetricSeries, _ value: Double) {
        registry.makeGauge(descriptor: series.descriptor).set(value)
    }

    /// Records `duration` in the histogram `series` with these label values.
    func record(_ series: MetricSeries, _ values: String..., duration: Duration) {
        Self.cached(in: histograms, series, values) { labels in
            registry.makeDurationHistogram(
                descriptor: series.descriptor, labels: labels, buckets: Self.durationBuckets)
        }.record(duration)
    }

    // MARK: APNs (APNSClientObserver)

    func notificationFinished(_ notification: APNSNotification, result: APNSResult, latency: Duration) {
        let outcome: (name: String, reason: String)
        switch result {
        case .accepted: outcome = ("accepted", "")
        case .rejected(let rejection) where rejection.reason == .connectionFailed:
            // Never written: no connection could be made. Not a send; the attempt to connect is counted once in
            // `apns_connect_failures_total`, and the delivery waits in the queue.
            return
        case .rejected(let rejection):
            // `unanswered`: written, but no answer came.
            outcome = (
                rejection.status == nil ? "unanswered" : "rejected",
                rejection.reason.isKnown ? rejection.reason.rawValue : "other"
            )
        }
        self.latency.record(latency)
        let (pushType, priority) = Self.labels(of: notification)
        counter(.sends, [outcome.name, outcome.reason, pushType, priority]).increment()
    }

    /// A notification's push type and priority as labels: a known push type or `other`, `10`, `5`, `1` or `other`.
    static func labels(of notification: APNSNotification) -> (pushType: String, priority: String) {
        let (pushType, priority): (APNSPushType?, APNSPriority) =
            switch notification.target {
            case .device(_, let headers): (headers.pushType, headers.effectivePriority)
            case .broadcast(let broadcast): (.liveactivity, broadcast.headers.priority)
            }
        let type = pushType.map { $0.isKnown ? $0.rawValue : "other" } ?? "alert"
        return (type, [10, 5, 1].contains(priority.rawValue) ? String(priority.rawValue) : "other")
    }

    func connectionFailed(reason: String) {
        connectFailures.increment()
    }

    func connectionsChanged(open: Int) {
        connections.set(Double(open))
    }

    // MARK: The database (StoreObserver)

    func operationFinished(_ operation: String, duration: Duration, failed: Bool) {
        record(.databaseStatementDuration, operation, duration: duration)
        if failed { count(.databaseErrors, operation) }
    }

    func connectionWaited(_ duration: Duration) {
        connectionWait.record(duration)
    }

    // MARK: The API

    /// Counts a request answered with `status` after `duration`, by its route template (`unmatched` when no route
    /// took it) and method (`other` for a method the API has no route for).
    func requestAnswered(route: String?, method: HTTPRequest.Method, status: Int, duration: Duration) {
        let known: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .head, .options]
        let method = known.contains(method) ? method.rawValue : "other"
        // Hummingbird names the route of a request no route took `NotFound`.
        let route = route.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        count(.httpRequests, route, method, String(status))
        record(.httpRequestDuration, route, method, duration: duration)
    }

    /// The text exposition format.
    func render() -> String { registry.emitToString() }
}
